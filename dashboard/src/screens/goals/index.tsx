/**
 * Goals & funnels: the site's goals (create, rename, delete), their conversions over the
 * period, and a funnel through goals chosen in order. Smoke-test goals are listed but kept out
 * of the reports and the funnel choices: their conversions are shown with the deployments.
 */
import { useState } from "preact/hooks";
import { api, unwrap, type Goal } from "../../api/client";
import { useLoad } from "../../state/load";
import { hasScope } from "../../state/session";
import { ConversionsReport } from "./conversions";
import { FunnelSection } from "./funnel";
import { Empty, Loaded, NeedsScopeNotice } from "../../ui/states";
import { focusGoalForm, GoalForm } from "./form";
import { isSmokeTest } from "./kinds";
import { GoalsTable } from "./table";

export function GoalsScreen({ site }: { site: string }) {
  const load = useLoad(() => unwrap(api.GET("/api/v1/sites/{id}/goals", { params: { path: { id: site } } })), [site]);
  return (
    <Loaded load={load} what="goals">
      {(data) => <GoalsBody site={site} initial={data.goals} />}
    </Loaded>
  );
}

/** Owns the list once read, so a change shows at once without reading every goal again. */
function GoalsBody({ site, initial }: { site: string; initial: Goal[] }) {
  const [goals, setGoals] = useState(initial);
  const canWrite = hasScope("write:goals");
  const canReport = hasScope("read:reports");
  const reportable = goals.filter((goal) => !isSmokeTest(goal));
  return (
    <>
      <section aria-labelledby="goals-title">
        <h2 id="goals-title">Goals</h2>
        {goals.length === 0 ? (
          <Empty>
            <p>No goals yet. A goal is what counts as a conversion: a page reached, an event your page sends, time on a page or scroll depth.</p>
            {canWrite ? (
              <button type="button" class="primary" onClick={focusGoalForm}>
                Create a goal
              </button>
            ) : (
              <p>A key with the write:goals scope can create them.</p>
            )}
          </Empty>
        ) : (
          <GoalsTable
            site={site}
            goals={goals}
            canWrite={canWrite}
            onChanged={(changed) => setGoals(goals.map((g) => (g.id === changed.id ? changed : g)))}
            onDeleted={(id) => setGoals(goals.filter((g) => g.id !== id))}
          />
        )}
        {canWrite && (
          <GoalForm site={site} title="New goal" onCreated={(goal) => goals.some((g) => g.id === goal.id) || setGoals([...goals, goal])} />
        )}
      </section>
      <section aria-labelledby="conversions-title">
        <h2 id="conversions-title">Conversions</h2>
        {canReport ? (
          <ConversionsReport site={site} goalsKey={reportable.map((g) => `${g.id}:${g.name}`).join()} />
        ) : (
          <NeedsScopeNotice scope="read:reports" what="Conversions and funnels" />
        )}
      </section>
      <section aria-labelledby="funnel-title">
        <h2 id="funnel-title">Funnel</h2>
        {canReport ? <FunnelSection site={site} goals={reportable} /> : <NeedsScopeNotice scope="read:reports" what="Conversions and funnels" />}
      </section>
    </>
  );
}
