/** The wizard's steps as an ordered list; the current one carries aria-current="step". */
import { useEffect, useRef } from "preact/hooks";

export const WIZARD_STEPS = ["Add the site", "Install the snippet", "Create your first goal"] as const;

export function WizardSteps({ current }: { current: number }) {
  return (
    <ol class="steps wizard-steps" aria-label="Steps">
      {WIZARD_STEPS.map((title, index) => {
        const n = index + 1;
        return (
          <li key={title} aria-current={n === current ? "step" : undefined} class={n < current ? "done" : undefined}>
            <span class="step-number">{n}</span> {title}
            {n < current && <span class="sr-only"> (done)</span>}
          </li>
        );
      })}
    </ol>
  );
}

/** A step's heading, focused when the step opens so keyboard and screen reader users start there. */
export function StepHeading({ children, id = "wizard-step-heading", focus = true }: { children: string; id?: string; focus?: boolean }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focus) ref.current?.focus();
  }, []);
  return (
    <h2 ref={ref} id={id} tabIndex={-1} class="step-heading">
      {children}
    </h2>
  );
}
