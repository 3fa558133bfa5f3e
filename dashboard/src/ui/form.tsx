/**
 * Forms that post to the API: a labelled field with its hint and the API's own 422 words next
 * to it (ApiProblem.field names the field), and a submit that is busy once at a time. A problem
 * naming no field of the form is shown above the submit button instead.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiProblem } from "../api/client";
import { Failure } from "./states";

/** The ids a control points at with aria-describedby: its hint and its error, when shown. */
export function describedBy(id: string, hint: boolean, error: string | undefined): string | undefined {
  const ids = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean);
  return ids.length ? ids.join(" ") : undefined;
}

/** A label, the control (the caller gives it `id`, `name` and `describedBy(…)`), a hint and an error. */
export function Field({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: string;
  hint?: ComponentChildren;
  error?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <p id={`${id}-hint`} class="hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} class="field-error">
          <span aria-hidden="true">⚠ </span>
          {error}
        </p>
      )}
    </div>
  );
}

export interface FormState {
  busy: boolean;
  problem: ApiProblem | null;
  /** The API's words for one field, when its problem names it. */
  errorFor(field: string): string | undefined;
  /** Binds to <form onSubmit>. */
  onSubmit(event: Event): void;
  ref: { current: HTMLFormElement | null };
}

/**
 * Runs `send` on submit. After a refusal that names one of `fields`, focus goes to that control
 * (by its `name`), whose description then carries the API's message.
 */
export function useApiForm<T>(fields: readonly string[], send: () => Promise<T>, done: (result: T) => void): FormState {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const ref = useRef<HTMLFormElement>(null);
  const named = problem?.field && fields.includes(problem.field) ? problem.field : null;
  useEffect(() => {
    if (!named) return;
    const control = ref.current?.elements.namedItem(named);
    if (control instanceof HTMLElement) control.focus();
  }, [problem]);
  return {
    busy,
    problem,
    ref,
    errorFor: (field) => (named === field ? problem!.message : undefined),
    onSubmit(event) {
      event.preventDefault();
      if (busy) return;
      setBusy(true);
      setProblem(null);
      send().then(
        (result) => {
          setBusy(false);
          done(result);
        },
        (error: unknown) => {
          setBusy(false);
          setProblem(error instanceof ApiProblem ? error : new ApiProblem(0, String(error)));
        },
      );
    },
  };
}

/** The form's problem when it names none of its fields (a 403, a 409 without a field, no server). */
export function FormProblem({ form }: { form: FormState }) {
  const { problem } = form;
  if (!problem) return null;
  if (problem.field && form.errorFor(problem.field)) return null;
  return <Failure problem={problem} />;
}
