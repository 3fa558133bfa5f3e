/**
 * The funnel builder and its report (GET /api/v1/funnels): 2–6 goals in order, kept in the URL
 * (?funnel=goal_a,goal_b; an unchosen step is empty), each step's sessions, the conversion from
 * the step before, the drop-off and the share of step 1. Funnels are whole-day reports.
 */
import type { Figure, Goal, Schemas } from "../../api/client";
import { api, unwrap } from "../../api/client";
import { useLoad } from "../../state/load";
import { query, setQuery } from "../../state/location";
import { filterQuery } from "../../state/filters";
import { dayPeriodParams, period } from "../../state/period";
import { FigureView, RateView } from "../../ui/figure";
import { FUNNELS_BY_DAY, WholeDayNote } from "../../ui/report-days";
import { Freshness } from "../../ui/freshness";
import { CaptionRange } from "../../ui/report-range";
import { Empty, Loaded } from "../../ui/states";

type Report = Schemas["FunnelReport"];


const MIN_STEPS = 2;
const MAX_STEPS = 6;

/** The steps the URL names, each a goal that can be reported or "" (not chosen yet). */
function urlSteps(goals: readonly Goal[]): string[] {
  const ids = (query.value.get("funnel") ?? "").split(",").slice(0, MAX_STEPS);
  const steps = ids.map((id) => (goals.some((g) => g.id === id) ? id : ""));
  while (steps.length < MIN_STEPS) steps.push("");
  return steps;
}

function setSteps(steps: string[]): void {
  // Replace, not push: picking four goals should not take four presses of Back to undo.
  setQuery({ funnel: steps.some(Boolean) ? steps.join(",") : undefined }, true);
}

/** Step-to-step conversion, from two shown figures: hidden if either is, estimated if either is. */
function stepRate(sessions: Figure, previous: Figure): Figure | null {
  if (sessions.value === null || previous.value === null) return { value: null, qualifier: "suppressed" };
  if (previous.value === 0) return null;
  const rate = sessions.value / previous.value;
  const exact = sessions.qualifier === "exact" && previous.qualifier === "exact" && rate <= 1;
  return { value: Math.min(rate, 1), qualifier: exact ? "exact" : "estimated" };
}

export function FunnelSection({ site, goals }: { site: string; /** Reportable goals only (no smoke tests). */ goals: readonly Goal[] }) {
  if (goals.length < MIN_STEPS) {
    return (
      <Empty>
        <p>A funnel needs at least two goals (smoke-test goals do not count). Create goals above, then choose them here in the order visitors reach them.</p>
      </Empty>
    );
  }
  const steps = urlSteps(goals);
  const complete = steps.every(Boolean);
  const change = (index: number, id: string) => setSteps(steps.map((s, i) => (i === index ? id : s)));
  return (
    <>
      <fieldset class="report-funnel-steps">
        <legend>Funnel steps, in order</legend>
        <ol>
          {steps.map((id, index) => (
            <li key={index}>
              <label for={`funnel-step-${index + 1}`}>Step {index + 1}</label>
              <select id={`funnel-step-${index + 1}`} value={id} onChange={(event) => change(index, (event.target as HTMLSelectElement).value)}>
                <option value="">Choose a goal</option>
                {goals.map((goal) => {
                  const taken = goal.id !== id && steps.includes(goal.id);
                  return (
                    <option key={goal.id} value={goal.id} disabled={taken}>
                      {taken ? `${goal.name} (already a step)` : goal.name}
                    </option>
                  );
                })}
              </select>
              {steps.length > MIN_STEPS && (
                <button type="button" aria-label={`Remove the step at position ${index + 1}`} onClick={() => setSteps(steps.filter((_, i) => i !== index))}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ol>
        {steps.length < MAX_STEPS && (
          <button type="button" onClick={() => setSteps([...steps, ""])}>
            Add step
          </button>
        )}
        <p class="hint">
          A session counts at a step when its first completion of that goal came after its first completion of the step before. {MIN_STEPS} to {MAX_STEPS}{" "}
          steps, each goal once.
        </p>
      </fieldset>
      {complete ? <FunnelReport site={site} steps={steps} /> : <p class="hint">Choose a goal for every step to see the funnel.</p>}
    </>
  );
}

function FunnelReport({ site, steps }: { site: string; steps: string[] }) {
  const params = { site, ...dayPeriodParams(period.value), ...filterQuery(), goals: steps.join(",") };
  // The route also answers CSV and NDJSON; without an Accept header it answers JSON.
  const read = () => unwrap(api.GET("/api/v1/funnels", { params: { query: params } }));
  const load = useLoad(read, [JSON.stringify(params)]);
  return (
    <>
      <WholeDayNote what="Funnels" site={site} why={FUNNELS_BY_DAY} />
      <Loaded load={load} what="the funnel">
        {(report) => (
          <>
            <Freshness range={report.period} next={report.next_figures} imported={report.imported} />
            <FunnelTable report={report} />
          </>
        )}
      </Loaded>
    </>
  );
}

function FunnelTable({ report }: { report: Report }) {
  const { k, steps } = report;
  return (
    <div class="table-wrap">
      <table class="report-table">
        <caption>
          Funnel: {steps.map((s) => s.goal.name).join(" → ")}
          <CaptionRange range={report.period} />
        </caption>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col" class="num">
              Sessions
            </th>
            <th scope="col">From the step before</th>
            <th scope="col" class="num">
              Dropped off
            </th>
            <th scope="col" class="num">
              Of step 1
            </th>
          </tr>
        </thead>
        <tbody>
          {steps.map((step, index) => {
            const before = steps[index - 1];
            const rate = before ? stepRate(step.sessions, before.sessions) : null;
            return (
              <tr key={step.step}>
                <th scope="row">
                  {step.step}. {step.goal.name}
                </th>
                <td class="num">
                  <FigureView figure={step.sessions} k={k} />
                </td>
                <td>
                  {before && rate ? (
                    <RateView numerator={step.sessions} denominator={before.sessions} rate={rate} k={k} />
                  ) : (
                    <span class="muted">{before ? "no sessions at the step before" : "first step"}</span>
                  )}
                </td>
                <td class="num">{before ? <FigureView figure={step.dropoff} k={k} /> : <span class="muted">first step</span>}</td>
                <td class="num">
                  <FigureView figure={step.rate} k={k} format="percent" />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
