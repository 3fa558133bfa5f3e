/**
 * The site wizard (/dashboard/sites/new): add the site, install and verify its snippet, create a
 * first goal. The site and the step live in the URL (?site=…&step=snippet|goal|done), so a
 * reload or the back button keeps the place, and the Overview can link straight to step 2.
 * Once the snippet is verified the goal form opens under it, so the proof stays in view.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, unwrap, type Site } from "../../api/client";
import { useLoad } from "../../state/load";
import { navigate, query } from "../../state/location";
import { hasScope } from "../../state/session";
import { reloadSites } from "../../state/sites";
import { Loaded, NeedsScopeNotice } from "../../ui/states";
import { FinishLinks, GoalStep } from "./goal";
import { SiteForm } from "./site-form";
import { SnippetStep } from "./snippet";
import { StepHeading, WizardSteps } from "./steps";

type Step = "snippet" | "goal" | "done";

const STEP_NUMBER: Record<Step, number> = { snippet: 2, goal: 3, done: 4 };

function go(site: string, step: Step): void {
  navigate("/sites/new", { site, step });
}

/** The site of steps 2 and 3: the one just created, else read again (after a reload). */
function WithSite({ id, known, children }: { id: string; known: Site | null; children: (site: Site) => ComponentChildren }) {
  const load = useLoad(
    () => (known?.id === id ? Promise.resolve(known) : unwrap(api.GET("/api/v1/sites/{id}", { params: { path: { id } } }))),
    [id],
  );
  return (
    <Loaded load={load} what="the site">
      {children}
    </Loaded>
  );
}

function AddSiteStep({ onCreated }: { onCreated(site: Site, created: boolean): void }) {
  return (
    <section aria-labelledby="wizard-step-heading" class="wizard-step">
      <StepHeading>Add the site</StepHeading>
      {hasScope("write:sites") ? (
        <SiteForm onCreated={onCreated} />
      ) : (
        <NeedsScopeNotice scope="write:sites" />
      )}
    </section>
  );
}

function DoneStep({ site }: { site: Site }) {
  return (
    <section aria-labelledby="wizard-step-heading" class="wizard-step">
      <StepHeading>{`${site.name} is set up`}</StepHeading>
      <p>Figures appear on the Overview about 25 seconds after each hour closes in {site.timezone}.</p>
      <FinishLinks site={site} />
    </section>
  );
}

export function WizardScreen() {
  const id = query.value.get("site");
  const raw = query.value.get("step");
  const step: Step | null = id ? (raw === "goal" || raw === "done" ? raw : "snippet") : null;
  const [created, setCreated] = useState<Site | null>(null);
  const [existed, setExisted] = useState(false);
  // Verified while on step 2: the goal form opens below it, and the steps show step 3.
  const [verifiedHere, setVerifiedHere] = useState<string | null>(null);
  const inlineGoal = step === "snippet" && verifiedHere === id;
  useEffect(() => {
    document.title = "Add a site · Wren";
  }, []);

  const onCreated = (site: Site, isNew: boolean) => {
    setCreated(site);
    setExisted(!isNew);
    // The header's site switcher lists the new site; a failed reread only delays that.
    void reloadSites().catch(() => undefined);
    go(site.id, "snippet");
  };

  return (
    <div class="wizard">
      <div class="screen-head">
        <h1>Add a site</h1>
      </div>
      <WizardSteps current={inlineGoal ? 3 : step ? STEP_NUMBER[step] : 1} />
      {!id ? (
        <AddSiteStep onCreated={onCreated} />
      ) : (
        <WithSite id={id} known={created}>
          {(site) => (
            <>
              {existed && step === "snippet" && (
                <p class="note" role="note">
                  {site.domain} was already registered as your site “{site.name}”: here is its snippet.
                </p>
              )}
              {step === "snippet" && (
                <SnippetStep site={site} verified={inlineGoal} onVerified={() => setVerifiedHere(site.id)} onNext={() => go(site.id, "goal")} />
              )}
              {inlineGoal && <GoalStep site={site} below onSkip={() => go(site.id, "done")} />}
              {step === "goal" && <GoalStep site={site} onSkip={() => go(site.id, "done")} />}
              {step === "done" && <DoneStep site={site} />}
            </>
          )}
        </WithSite>
      )}
    </div>
  );
}
