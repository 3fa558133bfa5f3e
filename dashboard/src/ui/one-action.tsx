/**
 * One action at a time, with one sentence when it fails: the sign-in, invitation and
 * share-password forms, whose refusals name no field to point at (forms that do use useApiForm).
 */
import { useState } from "preact/hooks";
import { ApiProblem } from "../api/client";

export interface OneAction {
  busy: boolean;
  problem: string | null;
  /** Binds to <form onSubmit> or a button's onClick. */
  start(event?: Event): Promise<void>;
}

/**
 * `explain` words the refusals a person can act on (undefined: the refusal's own message). Busy
 * stays on after success: each of these actions leaves the screen.
 */
export function useOneAction(run: () => Promise<void>, explain: (refused: ApiProblem) => string | undefined): OneAction {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  return {
    busy,
    problem,
    async start(event) {
      event?.preventDefault();
      setBusy(true);
      setProblem(null);
      try {
        await run();
      } catch (error) {
        const refused =
          error instanceof ApiProblem ? error : new ApiProblem(0, error instanceof Error ? error.message : String(error));
        setProblem(explain(refused) ?? refused.message);
        setBusy(false);
      }
    },
  };
}

/** The failure sentence under the action, announced as it appears. */
export function ActionProblem({ action, id }: { action: OneAction; id?: string }) {
  return action.problem ? (
    <p id={id} class="failure" role="alert">
      {action.problem}
    </p>
  ) : null;
}
