/**
 * Wizard step 3: the site's first goal → POST /api/v1/sites/{id}/goals. What `match` and
 * `threshold` mean depends on the kind, so the hints follow the chosen kind; the threshold is
 * asked for only where the API takes one (time: seconds, scroll: percent).
 */
import { useState } from "preact/hooks";
import { api, unwrap, type Goal, type Site } from "../../api/client";
import { linkTo } from "../../state/location";
import { hasScope } from "../../state/session";
import { NeedsScopeNotice } from "../../ui/states";
import { describedBy, Field, FormProblem, useApiForm } from "../../ui/form";
import { StepHeading } from "./steps";

type Kind = Goal["kind"];

const KINDS: readonly { kind: Kind; label: string; match: string; placeholder: string; threshold?: { hint: string; max: number } }[] = [
  { kind: "page", label: "Page visited", match: "A path pattern: /thanks, or /docs/* (* is a wildcard).", placeholder: "/thanks" },
  {
    kind: "event",
    label: "Custom event",
    match: 'The name your pages send with wren.track("signup"): letters, digits, space and _ . : / -',
    placeholder: "signup",
  },
  {
    kind: "time",
    label: "Time on page",
    match: "A path pattern: counts a session that stays on a matching page for the threshold.",
    placeholder: "/pricing",
    threshold: { hint: "Seconds on the page (1–86400).", max: 86_400 },
  },
  {
    kind: "scroll",
    label: "Scroll depth",
    match: "A path pattern: counts a session that scrolls a matching page down to the threshold.",
    placeholder: "/blog/*",
    threshold: { hint: "Scroll depth in percent (1–100).", max: 100 },
  },
];

const FIELDS = ["kind", "match", "threshold", "purpose", "name"] as const;

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

function GoalForm({ site, onCreated }: { site: Site; onCreated(goal: Goal, created: boolean): void }) {
  const [kind, setKind] = useState<Kind>("page");
  const [match, setMatch] = useState("");
  const [threshold, setThreshold] = useState("");
  const [purpose, setPurpose] = useState("");
  const [name, setName] = useState("");
  const spec = KINDS.find((k) => k.kind === kind)!;
  const form = useApiForm(
    FIELDS,
    async () => {
      const body = {
        kind,
        match: match.trim(),
        ...(spec.threshold && threshold !== "" ? { threshold: Number(threshold) } : {}),
        ...(purpose.trim() ? { purpose: purpose.trim() } : {}),
        ...(name.trim() ? { name: name.trim() } : {}),
      };
      const call = api.POST("/api/v1/sites/{id}/goals", { params: { path: { id: site.id } }, body });
      const goal = await unwrap(call);
      return { goal, created: (await call).response.status === 201 };
    },
    ({ goal, created }) => onCreated(goal, created),
  );
  const input = (setter: (value: string) => void) => (event: Event) => setter((event.target as HTMLInputElement).value);
  const errors = Object.fromEntries(FIELDS.map((f) => [f, form.errorFor(f)]));
  return (
    <form class="stack wizard-form" ref={form.ref} onSubmit={form.onSubmit}>
      <Field id="goal-kind" label="Kind" error={errors.kind}>
        <select
          id="goal-kind"
          name="kind"
          value={kind}
          onChange={(e) => setKind((e.target as HTMLSelectElement).value as Kind)}
          aria-describedby={describedBy("goal-kind", false, errors.kind)}
        >
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label} ({k.kind})
            </option>
          ))}
        </select>
      </Field>
      <Field id="goal-match" label="Match" hint={spec.match} error={errors.match}>
        <input
          id="goal-match"
          name="match"
          required
          autoComplete="off"
          autoCapitalize="off"
          spellcheck={false}
          placeholder={spec.placeholder}
          value={match}
          onInput={input(setMatch)}
          aria-invalid={errors.match ? true : undefined}
          aria-describedby={describedBy("goal-match", true, errors.match)}
        />
      </Field>
      {spec.threshold && (
        <Field id="goal-threshold" label="Threshold" hint={spec.threshold.hint} error={errors.threshold}>
          <input
            id="goal-threshold"
            name="threshold"
            type="number"
            required
            min={1}
            max={spec.threshold.max}
            step={1}
            inputMode="numeric"
            value={threshold}
            onInput={input(setThreshold)}
            aria-invalid={errors.threshold ? true : undefined}
            aria-describedby={describedBy("goal-threshold", true, errors.threshold)}
          />
        </Field>
      )}
      <Field id="goal-purpose" label="Purpose" hint="Optional: a free label, e.g. content depth." error={errors.purpose}>
        <input
          id="goal-purpose"
          name="purpose"
          maxLength={100}
          value={purpose}
          onInput={input(setPurpose)}
          aria-invalid={errors.purpose ? true : undefined}
          aria-describedby={describedBy("goal-purpose", true, errors.purpose)}
        />
      </Field>
      <Field id="goal-name" label="Name" hint={`Optional: how reports name the goal; default "${kind}: ${match || spec.placeholder}".`} error={errors.name}>
        <input
          id="goal-name"
          name="name"
          maxLength={100}
          value={name}
          onInput={input(setName)}
          aria-invalid={errors.name ? true : undefined}
          aria-describedby={describedBy("goal-name", true, errors.name)}
        />
      </Field>
      <FormProblem form={form} />
      <button type="submit" class="primary" disabled={form.busy}>
        {form.busy ? "Creating the goal…" : "Create goal"}
      </button>
    </form>
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
          <GoalForm site={site} onCreated={(goal, created) => setResult({ goal, created })} />
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
