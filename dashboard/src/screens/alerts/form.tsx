/**
 * The form that makes an alert rule (POST /api/v1/alerts), labelled as docs/alerts.md names
 * the settings. It sends only the chosen kind's fields (the API refuses the other kind's by
 * name) and shows a refusal next to the field it names, with the focus moved there.
 */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, unwrap, type Goal, type Schemas } from "../../api/client";
import type { AlertRule } from "./describe";
import { DestinationsFieldset, newDestination, type DestinationDraft } from "./destinations";
import { Field, FormProblem, SubmitOrCancel, useApiForm, valueOf, WholeNumberField } from "../../ui/field";
import { isSmokeTest } from "../goals/kinds";
import { thresholdRule } from "../../../../worker/lib/alert-threshold";
import { GoalField } from "./goal-field";

type RuleCreate = Schemas["AlertRuleCreate"];
type Kind = NonNullable<RuleCreate["kind"]>;
type Metric = NonNullable<RuleCreate["metric"]>;
type Condition = NonNullable<RuleCreate["condition"]>;

interface Draft {
  kind: Kind;
  metric: Metric;
  goalId: string;
  condition: Condition;
  threshold: string;
  windowHours: string;
  forMinutes: string;
  withinMinutes: string;
  destinations: DestinationDraft[];
}

const FRESH: Omit<Draft, "destinations"> = {
  kind: "threshold",
  metric: "pageviews",
  goalId: "",
  condition: "below",
  threshold: "",
  windowHours: "24",
  forMinutes: "0",
  withinMinutes: "15",
};

function ruleBody(site: string, d: Draft): RuleCreate {
  const destinations = d.destinations.map(({ url, format }) => ({ url: url.trim(), format }));
  if (d.kind === "deployment_without_smoke") return { site, kind: d.kind, within_minutes: Number(d.withinMinutes), destinations };
  return {
    site,
    kind: d.kind,
    metric: d.metric,
    ...(d.metric === "goal" ? { goal_id: d.goalId.trim() } : {}),
    condition: d.condition,
    threshold: Number(d.threshold),
    window_hours: Number(d.windowHours),
    for_minutes: Number(d.forMinutes),
    destinations,
  };
}

/** The fields the draft draws: a refusal naming any other is shown for the whole form. */
function drawnFields(d: Draft): string[] {
  const fields =
    d.kind === "threshold"
      ? ["kind", "metric", ...(d.metric === "goal" ? ["goal_id"] : []), "condition", "threshold", "window_hours", "for_minutes"]
      : ["kind", "within_minutes"];
  d.destinations.forEach((_, i) => fields.push(`destinations.${i}.url`, `destinations.${i}.format`));
  return [...fields, "destinations"];
}

/** The rule "1 or at least k" in the API's own words (worker/lib/alert-threshold.ts, docs/alerts.md, Privacy). */
function thresholdHint(k: number | null, smoke: boolean): string {
  if (smoke) return "A smoke-test goal counts exactly: any whole number, 0 included.";
  if (k === null)
    return "A whole number: 1 (with below: none at all) or at least k, the privacy threshold (5 unless the operator changed it).";
  return `A whole number: ${thresholdRule(k)}.`;
}

export function AlertRuleForm({
  site,
  goals,
  k,
  onCreated,
  onCancel,
}: {
  site: string;
  /** null: this key cannot list goals, so the goal is given by id. */
  goals: Goal[] | null;
  k: number | null;
  /** The new rule, with each destination's secret: the only time they are shown. */
  onCreated: (rule: AlertRule) => void;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => ({ ...FRESH, destinations: [newDestination()] }));
  const heading = useRef<HTMLHeadingElement>(null);
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const form = useApiForm({
    id: "alert-new",
    fields: drawnFields(draft),
    send: () => unwrap(api.POST("/api/v1/alerts", { body: ruleBody(site, draft) })),
    done: onCreated,
  });
  const smoke = draft.metric === "goal" && (goals?.some((g) => g.id === draft.goalId && isSmokeTest(g)) ?? false);

  useLayoutEffect(() => heading.current?.focus(), []);

  return (
    <form id="alert-form" class="ak-form" aria-labelledby="alert-form-title" onSubmit={form.onSubmit}>
      <h3 id="alert-form-title" tabIndex={-1} ref={heading}>
        New alert rule
      </h3>
      <FormProblem form={form} lead="The rule was not made" />
      <div class="ak-grid">
        <Field
          form={form}
          field="kind"
          label="Kind"
          hint={
            draft.kind === "threshold"
              ? "A counter crosses a line over a window."
              : "A deployment gets no smoke-test conversion in time."
          }
        >
          {(props) => (
            <select {...props} value={draft.kind} onChange={(e) => set({ kind: valueOf(e) as Kind })}>
              <option value="threshold">Threshold</option>
              <option value="deployment_without_smoke">Deployment without smoke test</option>
            </select>
          )}
        </Field>
        {draft.kind === "threshold" ? (
          <>
            <Field form={form} field="metric" label="Metric">
              {(props) => (
                <select {...props} value={draft.metric} onChange={(e) => set({ metric: valueOf(e) as Metric })}>
                  <option value="pageviews">Pageviews</option>
                  <option value="visitors">Visitors</option>
                  <option value="goal">Goal conversions</option>
                </select>
              )}
            </Field>
            {draft.metric === "goal" && (
              <GoalField form={form} goals={goals} value={draft.goalId} onChange={(goalId) => set({ goalId })} />
            )}
            <Field
              form={form}
              field="condition"
              label="Condition"
              hint="Below fires when the figure is less than the threshold; above, when it is more."
            >
              {(props) => (
                <select {...props} value={draft.condition} onChange={(e) => set({ condition: valueOf(e) as Condition })}>
                  <option value="below">Below</option>
                  <option value="above">Above</option>
                </select>
              )}
            </Field>
            <WholeNumberField
              form={form}
              field="threshold"
              label="Threshold"
              hint={thresholdHint(k, smoke)}
              min={0}
              max={1_000_000_000}
              value={draft.threshold}
              onValue={(value) => set({ threshold: value })}
            />
            <WholeNumberField
              form={form}
              field="window_hours"
              label="Window (hours)"
              hint="The trailing closed hours the figure covers, 1–168."
              min={1}
              max={168}
              value={draft.windowHours}
              onValue={(value) => set({ windowHours: value })}
            />
            <WholeNumberField
              form={form}
              field="for_minutes"
              label="For (minutes)"
              hint="How long the condition must hold before the rule fires, 0–10,080. Hourly rules move on hour boundaries."
              min={0}
              max={10_080}
              value={draft.forMinutes}
              onValue={(value) => set({ forMinutes: value })}
            />
          </>
        ) : (
          <WholeNumberField
            form={form}
            field="within_minutes"
            label="Within (minutes)"
            hint="How long after a deployment its smoke-test conversion may take, 1–1,440. Fires for a deployment without one."
            min={1}
            max={1440}
            value={draft.withinMinutes}
            onValue={(value) => set({ withinMinutes: value })}
          />
        )}
      </div>
      <DestinationsFieldset form={form} rows={draft.destinations} onChange={(destinations) => set({ destinations })} />
      <SubmitOrCancel form={form} label="Create rule" busyLabel="Creating…" onCancel={onCancel} />
    </form>
  );
}
