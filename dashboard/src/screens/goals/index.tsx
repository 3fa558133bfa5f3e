/**
 * Goals & funnels: the site's goals (create, rename, delete), their conversions over the
 * period, and a funnel through goals chosen in order. Smoke-test goals are listed but kept out
 * of the reports and the funnel choices: their conversions are shown with the deployments.
 */
import { useState } from "preact/hooks";
import { api, ApiProblem, unwrap, type Goal } from "../../api/client";
import { useLoad } from "../../state/load";
import { hasScope } from "../../state/session";
import { ConversionsReport } from "./conversions";
import { FunnelSection } from "./funnel";
import { Empty, Loaded, NeedsScopeNotice } from "../../ui/states";
import { describedBy, FieldError, GoalsTable, isSmokeTest, KIND_LABELS, SMOKE_TEST } from "./table";

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
              <button type="button" class="primary" onClick={() => document.getElementById("new-goal-name")?.focus()}>
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
        {canWrite && <NewGoalForm site={site} onCreated={(goal) => goals.some((g) => g.id === goal.id) || setGoals([...goals, goal])} />}
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

const MATCH_HINTS: Record<Goal["kind"], string> = {
  page: "A path, or a pattern with * for anything (/thanks, /docs/*).",
  event: "The event name your page sends with wren.track(name).",
  time: "The pages it applies to: a path, or a pattern with *.",
  scroll: "The pages it applies to: a path, or a pattern with *.",
};

const THRESHOLD_HINTS: Partial<Record<Goal["kind"], string>> = {
  time: "Seconds on the page (1–86400).",
  scroll: "Scroll depth in percent (1–100).",
};

/** Fields the form shows an API problem under; any other problem is shown above the button. */
const FIELDS = ["name", "kind", "match", "threshold", "purpose"];

function NewGoalForm({ site, onCreated }: { site: string; onCreated: (goal: Goal) => void }) {
  const [kind, setKind] = useState<Goal["kind"]>("page");
  const [name, setName] = useState("");
  const [match, setMatch] = useState("");
  const [threshold, setThreshold] = useState("");
  const [purpose, setPurpose] = useState("");
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const [done, setDone] = useState("");
  const [busy, setBusy] = useState(false);
  const thresholdHint = THRESHOLD_HINTS[kind];
  const input = (set: (value: string) => void) => (event: Event) => set((event.target as HTMLInputElement).value);

  const create = async () => {
    setBusy(true);
    setProblem(null);
    setDone("");
    const body = {
      kind,
      match: match.trim(),
      name: name.trim() || undefined,
      threshold: thresholdHint && threshold !== "" ? Number(threshold) : undefined,
      purpose: purpose.trim() || undefined,
    };
    try {
      const call = api.POST("/api/v1/sites/{id}/goals", { params: { path: { id: site } }, body });
      const goal = await unwrap(call);
      // 200 instead of 201: a goal of the same kind, match and threshold exists, and this is it.
      const created = (await call).response.status === 201;
      onCreated(goal);
      setDone(created ? `Goal “${goal.name}” created.` : `That goal already exists: “${goal.name}”.`);
      setName("");
      setMatch("");
      setThreshold("");
      setPurpose("");
    } catch (error) {
      setProblem(error instanceof ApiProblem ? error : new ApiProblem(0, String(error)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="goal-form"
      aria-labelledby="new-goal-title"
      noValidate // the API's own words, next to the field it names, rather than the browser's
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      <h3 id="new-goal-title">New goal</h3>
      <div class="table-field">
        <label for="new-goal-name">Name</label>
        <input id="new-goal-name" maxLength={100} value={name} onInput={input(setName)} {...describedBy(problem, "name", "new-goal-name", true)} />
        <span id="new-goal-name-hint" class="hint">
          Optional; without one it is named after its kind and match.
        </span>
        <FieldError problem={problem} field="name" inputId="new-goal-name" />
      </div>
      <div class="table-field">
        <label for="new-goal-kind">Kind</label>
        <select id="new-goal-kind" value={kind} onChange={input((v) => setKind(v as Goal["kind"]))} {...describedBy(problem, "kind", "new-goal-kind")}>
          {(Object.keys(KIND_LABELS) as Goal["kind"][]).map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k]}
            </option>
          ))}
        </select>
        <FieldError problem={problem} field="kind" inputId="new-goal-kind" />
      </div>
      <div class="table-field">
        <label for="new-goal-match">Match</label>
        <input
          id="new-goal-match"
          required
          spellcheck={false}
          autocomplete="off"
          value={match}
          onInput={input(setMatch)}
          {...describedBy(problem, "match", "new-goal-match", true)}
        />
        <span id="new-goal-match-hint" class="hint">
          {MATCH_HINTS[kind]}
        </span>
        <FieldError problem={problem} field="match" inputId="new-goal-match" />
      </div>
      {thresholdHint && (
        <div class="table-field">
          <label for="new-goal-threshold">Threshold</label>
          <input
            id="new-goal-threshold"
            type="number"
            inputMode="numeric"
            required
            min={1}
            max={kind === "scroll" ? 100 : 86400}
            value={threshold}
            onInput={input(setThreshold)}
            {...describedBy(problem, "threshold", "new-goal-threshold", true)}
          />
          <span id="new-goal-threshold-hint" class="hint">
            {thresholdHint}
          </span>
          <FieldError problem={problem} field="threshold" inputId="new-goal-threshold" />
        </div>
      )}
      <div class="table-field">
        <label for="new-goal-purpose">Purpose</label>
        <input id="new-goal-purpose" maxLength={100} value={purpose} onInput={input(setPurpose)} {...describedBy(problem, "purpose", "new-goal-purpose", true)} />
        <span id="new-goal-purpose-hint" class="hint">
          Optional free label. “{SMOKE_TEST}” on an event goal makes it a smoke test: posted by your deploy script, kept out of every report and
          shown with the deployments.
        </span>
        <FieldError problem={problem} field="purpose" inputId="new-goal-purpose" />
      </div>
      {problem && !FIELDS.includes(problem.field ?? "") && (
        <p class="failure" role="alert">
          {problem.message}
        </p>
      )}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          Create goal
        </button>
        <span role="status" class="success">
          {done}
        </span>
      </div>
    </form>
  );
}
