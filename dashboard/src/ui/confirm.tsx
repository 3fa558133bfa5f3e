/**
 * An inline confirmation for what cannot be undone (deleting a rule, a goal or a marker,
 * revoking a key): the button becomes the question with its confirm and Cancel buttons in
 * place. Cancel takes the focus, so a stray Enter harms nothing; Escape cancels too. Inline
 * rather than a modal: no focus trap to get wrong, and the question stays beside what it is about.
 */
import { useId, useLayoutEffect, useRef, useState } from "preact/hooks";

export function ConfirmButton({
  label,
  ariaLabel,
  question,
  confirmLabel,
  busyLabel,
  describedBy,
  onConfirm,
}: {
  label: string;
  /** The asking button's name when `label` alone is ambiguous in a list ("Delete marker v2.4.0"). */
  ariaLabel?: string;
  question: string;
  confirmLabel: string;
  busyLabel: string;
  /** The id of what the action is about (a row header), read after the button's name. */
  describedBy?: string;
  /** Settles when the action is done; its failure is the caller's to show. */
  onConfirm: () => Promise<unknown>;
}) {
  const [phase, setPhase] = useState<"idle" | "asking" | "busy">("idle");
  const questionId = useId();
  const trigger = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  // A layout effect: the focus moves in the same task as the click, before another key arrives.
  useLayoutEffect(() => {
    if (phase === "asking") cancelButton.current?.focus();
    if (phase === "idle" && refocus.current) {
      refocus.current = false;
      trigger.current?.focus();
    }
  }, [phase]);
  const back = () => {
    refocus.current = true;
    setPhase("idle");
  };
  const confirm = async () => {
    setPhase("busy");
    try {
      await onConfirm();
    } finally {
      // After a success the row is usually gone and this is a no-op.
      back();
    }
  };
  if (phase === "idle") {
    return (
      <button
        ref={trigger}
        type="button"
        class="danger"
        aria-label={ariaLabel}
        aria-describedby={describedBy}
        onClick={() => setPhase("asking")}
      >
        {label}
      </button>
    );
  }
  return (
    <span
      class="confirm-inline"
      role="group"
      aria-labelledby={questionId}
      onKeyDown={(event) => {
        if (event.key === "Escape" && phase === "asking") back();
      }}
    >
      <span id={questionId}>{question}</span>
      <button type="button" class="danger" disabled={phase === "busy"} onClick={confirm}>
        {phase === "busy" ? busyLabel : confirmLabel}
      </button>
      <button ref={cancelButton} type="button" disabled={phase === "busy"} onClick={back}>
        Cancel
      </button>
    </span>
  );
}
