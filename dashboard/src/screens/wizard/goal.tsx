/**
 * Wizard step 3: the site's first goal, with the Goals screen's own form; once it is made, the
 * step says so and links on.
 */
import { useState } from "preact/hooks";
import type { Goal, Site } from "../../api/client";
import { linkTo } from "../../state/location";
import { hasScope } from "../../state/session";
import { NeedsScopeNotice } from "../../ui/states";
import { GoalForm } from "../goals/form";
import { StepHeading } from "./steps";

/** Where to go once the site is set up: its Overview and its Goals. */
export function FinishLinks({ site }: { site: Site }) {
  const base = `/s/${encodeURIComponent(site.id)}`;
  return (
    <p class="row wizard-actions">
      <a class="button primary" href={linkTo(`${base}/overview`)}>
        Open the Overview
      </a>
      <a class="button" href={linkTo(`${base}/goals`)}>
        Open Goals
      </a>
    </p>
  );
}

/** `below`: opened under the verified snippet step, so it neither takes focus nor reuses its heading id. */
export function GoalStep({ site, onSkip, below = false }: { site: Site; onSkip(): void; below?: boolean }) {
  const [result, setResult] = useState<{ goal: Goal; created: boolean } | null>(null);
  const heading = below ? "wizard-goal-heading" : "wizard-step-heading";
  return (
    <section aria-labelledby={heading} class="wizard-step">
      <StepHeading id={heading} focus={!below}>
        Create your first goal
      </StepHeading>
      {result ? (
        <>
          <p role="status">
            <span class="success">
              Goal “{result.goal.name}” {result.created ? "created" : "already existed"}.
            </span>{" "}
            Its conversions appear on the Overview as its first hours close.
          </p>
          <FinishLinks site={site} />
        </>
      ) : hasScope("write:goals") ? (
        <>
          <p>A goal is what counts as a conversion: a page reached, an event sent, time spent or a scroll depth reached.</p>
          <GoalForm site={site.id} onCreated={(goal, created) => setResult({ goal, created })} />
        </>
      ) : (
        <NeedsScopeNotice scope="write:goals" what="Creating a goal" />
      )}
      {!result && (
        <p>
          <button type="button" class="link-button" onClick={onSkip}>
            Skip this step
          </button>{" "}
          <span class="hint">You can add goals later on the Goals screen.</span>
        </p>
      )}
    </section>
  );
}
