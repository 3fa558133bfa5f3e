/**
 * The one form that creates a goal (POST /api/v1/sites/{id}/goals): the wizard's last step and
 * the Goals screen both draw it. The hints follow the chosen kind, and the threshold is asked
 * for only where the API takes one.
 */
import { useState } from "preact/hooks";
import { api, unwrap, type Goal } from "../../api/client";
import { Field, focusField, FormProblem, useApiForm, valueOf, WholeNumberField } from "../../ui/field";
import { GOAL_KINDS, SMOKE_TEST, type GoalKind } from "./kinds";

const FORM = "new-goal";

/** Takes the reader to the form's first field (from an empty list's "Create a goal"). */
export function focusGoalForm(): void {
  focusField({ id: FORM }, "kind");
}

/**
 * `created` is false when a goal of the same kind, match and threshold existed (the API answers
 * 200 with it). `title` names the form with a heading, where it stands on its own.
 */
export function GoalForm({
  site,
  title,
  onCreated,
}: {
  site: string;
  title?: string;
  onCreated(goal: Goal, created: boolean): void;
}) {
  const [kind, setKind] = useState<GoalKind>("page");
  const [match, setMatch] = useState("");
  const [threshold, setThreshold] = useState("");
  const [purpose, setPurpose] = useState("");
  const [currency, setCurrency] = useState("");
  const [name, setName] = useState("");
  const [outcome, setOutcome] = useState("");
  const spec = GOAL_KINDS[kind];
  const form = useApiForm({
    id: FORM,
    fields: ["kind", "match", ...(spec.threshold ? ["threshold"] : []), "purpose", "revenue.currency", "name"],
    async send() {
      setOutcome("");
      const body = {
        kind,
        match: match.trim() || undefined,
        threshold: spec.threshold && threshold !== "" ? Number(threshold) : undefined,
        purpose: purpose.trim() || undefined,
        // A revenue goal: the API checks the code (ISO 4217, upper case) and names the field when wrong.
        revenue: currency.trim() ? { currency: currency.trim() } : undefined,
        name: name.trim() || undefined,
      };
      const call = api.POST("/api/v1/sites/{id}/goals", { params: { path: { id: site } }, body });
      const goal = await unwrap(call);
      return { goal, created: (await call).response.status === 201 };
    },
    done({ goal, created }) {
      setOutcome(created ? `Goal “${goal.name}” created.` : `That goal already exists: “${goal.name}”.`);
      setMatch("");
      setThreshold("");
      setPurpose("");
      setCurrency("");
      setName("");
      onCreated(goal, created);
    },
  });
  return (
    <form
      class={title ? "stack goal-form" : "stack"}
      aria-labelledby={title ? `${FORM}-title` : undefined}
      onSubmit={form.onSubmit}
    >
      {title && <h3 id={`${FORM}-title`}>{title}</h3>}
      <Field form={form} field="kind" label="Kind">
        {(props) => (
          <select {...props} value={kind} onChange={(e) => setKind(valueOf(e) as GoalKind)}>
            {(Object.keys(GOAL_KINDS) as GoalKind[]).map((k) => (
              <option key={k} value={k}>
                {GOAL_KINDS[k].label} ({k})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field form={form} field="match" label="Match" hint={spec.match}>
        {(props) => (
          <input
            {...props}
            required={!spec.optional}
            autoComplete="off"
            autoCapitalize="off"
            spellcheck={false}
            placeholder={spec.placeholder}
            value={match}
            onInput={(e) => setMatch(valueOf(e))}
          />
        )}
      </Field>
      {spec.threshold && (
        <WholeNumberField
          form={form}
          field="threshold"
          label="Threshold"
          hint={spec.threshold.hint}
          min={1}
          max={spec.threshold.max}
          value={threshold}
          onValue={setThreshold}
        />
      )}
      <Field
        form={form}
        field="purpose"
        label="Purpose"
        hint={`Optional: a free label, e.g. content depth. “${SMOKE_TEST}” on an event goal makes it a smoke test: posted by your deploy script, kept out of every report and shown with the deployments.`}
      >
        {(props) => <input {...props} maxLength={100} value={purpose} onInput={(e) => setPurpose(valueOf(e))} />}
      </Field>
      <Field
        form={form}
        field="revenue.currency"
        label="Currency"
        hint="Optional: makes it a revenue goal. Conversions then carry amounts in this currency (ISO 4217, e.g. EUR); reports show their total and average, perturbed."
      >
        {(props) => (
          <input
            {...props}
            maxLength={3}
            autoComplete="off"
            autoCapitalize="characters"
            spellcheck={false}
            placeholder="EUR"
            value={currency}
            onInput={(e) => setCurrency(valueOf(e))}
          />
        )}
      </Field>
      <Field
        form={form}
        field="name"
        label="Name"
        hint={`Optional: how reports name the goal; default "${kind}: ${match || spec.placeholder}".`}
      >
        {(props) => <input {...props} maxLength={100} value={name} onInput={(e) => setName(valueOf(e))} />}
      </Field>
      <FormProblem form={form} />
      <div class="row">
        <button type="submit" class="primary" disabled={form.busy}>
          {form.busy ? "Creating the goal…" : "Create goal"}
        </button>
        <span role="status" class="success">
          {outcome}
        </span>
      </div>
    </form>
  );
}
