/**
 * The Alerts screen: a site's alert rules with their state, a form to make one (its signing
 * secrets shown once), pause and resume, test, delete, and each rule's history. Reading takes
 * read:reports or write:alerts (the app checks); changing takes write:alerts, so a key without
 * it sees the rules and their history only.
 */
import { useRef, useState } from "preact/hooks";
import { api, unwrap, type Goal } from "../../api/client";
import { useLoad } from "../../state/load";
import { hasScope } from "../../state/session";
import { ruleSummary, type AlertRule, type GoalName } from "./describe";
import { AlertRuleForm } from "./form";
import { AlertHistoryPanel } from "./history";
import { useSiteK } from "./k";
import { AlertRulesTable, historyButtonId, type RuleActions } from "./rules";
import { AlertSecrets } from "./secrets";
import { Empty, Loaded, NeedsScopeNotice } from "../../ui/states";

/** The site's goals, to name the goals rules watch; null when this key cannot list them (read:sites). */
async function readGoals(site: string): Promise<Goal[] | null> {
  if (!hasScope("read:sites")) return null;
  return (await unwrap(api.GET("/api/v1/sites/{id}/goals", { params: { path: { id: site } } }))).goals;
}

function withoutSecrets(rule: AlertRule): AlertRule {
  return { ...rule, destinations: rule.destinations.map(({ id, url, format }) => ({ id, url, format })) };
}

type Notice = { kind: "done" | "failed"; text: string } | null;

function AlertsBody({ site, initial, goals, k }: { site: string; initial: AlertRule[]; goals: Goal[] | null; k: number | null }) {
  const canWrite = hasScope("write:alerts");
  const [rules, setRules] = useState(initial);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<AlertRule | null>(null);
  const [historyOf, setHistoryOf] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice>(null);
  const listHeading = useRef<HTMLHeadingElement>(null);
  const newButton = useRef<HTMLButtonElement>(null);
  const goalName: GoalName = (id) => goals?.find((g) => g.id === id)?.name ?? id;
  const replace = (next: AlertRule) => setRules((list) => list.map((r) => (r.id === next.id ? next : r)));

  /** Runs a change, saying what it did or the API's reason it did not. */
  const act = async (job: () => Promise<string>) => {
    setNotice(null);
    try {
      setNotice({ kind: "done", text: await job() });
    } catch (error) {
      setNotice({ kind: "failed", text: error instanceof Error ? error.message : String(error) });
    }
  };

  const actions: RuleActions = {
    setEnabled: (rule, enabled) =>
      act(async () => {
        replace(await unwrap(api.PATCH("/api/v1/alerts/{id}", { params: { path: { id: rule.id } }, body: { enabled } })));
        return enabled
          ? `Resumed: ${ruleSummary(rule, goalName)}. It is evaluated again from the state it had.`
          : `Paused: ${ruleSummary(rule, goalName)}. It keeps its state and is not evaluated until resumed.`;
      }),
    sendTest: (rule) =>
      act(async () => {
        const { queued } = await unwrap(api.POST("/api/v1/alerts/{id}/test", { params: { path: { id: rule.id } } }));
        const to = queued.map(
          (q) => `${rule.destinations.find((d) => d.id === q.destination)?.url ?? q.destination} (${q.webhook_id})`,
        );
        return `Test notification queued for ${queued.length} ${queued.length === 1 ? "destination" : "destinations"}: ${to.join(", ")}. Open History to see whether it was delivered.`;
      }),
    remove: (rule) =>
      act(async () => {
        await unwrap(api.DELETE("/api/v1/alerts/{id}", { params: { path: { id: rule.id } } }));
        setRules((list) => list.filter((r) => r.id !== rule.id));
        if (historyOf === rule.id) setHistoryOf(null);
        listHeading.current?.focus();
        return `Deleted: ${ruleSummary(rule, goalName)}, with its history.`;
      }),
    toggleHistory: (rule) => setHistoryOf((open) => (open === rule.id ? null : rule.id)),
  };

  const historyRule = rules.find((r) => r.id === historyOf) ?? null;
  return (
    <>
      {created && (
        <AlertSecrets
          rule={created}
          summary={ruleSummary(created, goalName)}
          onDone={() => {
            setCreated(null);
            newButton.current?.focus();
          }}
        />
      )}
      <div class="screen-head">
        <h2 id="alert-rules-title" tabIndex={-1} ref={listHeading}>
          Rules
        </h2>
        {canWrite && (
          <button
            type="button"
            class="primary"
            ref={newButton}
            aria-expanded={creating}
            aria-controls="alert-form"
            onClick={() => setCreating((open) => !open)}
          >
            New rule
          </button>
        )}
      </div>
      {!canWrite && <NeedsScopeNotice scope="write:alerts" what="Creating, pausing, testing and deleting rules" />}
      {creating && (
        <AlertRuleForm
          site={site}
          goals={goals}
          k={k}
          onCreated={(rule) => {
            setCreating(false);
            setCreated(rule);
            setRules((list) => [...list, withoutSecrets(rule)]);
          }}
          onCancel={() => {
            setCreating(false);
            newButton.current?.focus();
          }}
        />
      )}
      <p role="status" class="ak-notice">
        {notice?.kind === "done" ? notice.text : ""}
      </p>
      {notice?.kind === "failed" && (
        <div class="failure" role="alert">
          <p>{notice.text}</p>
        </div>
      )}
      {rules.length === 0 ? (
        <Empty>
          <p>No alert rules on this site yet.</p>
          <p>
            {canWrite
              ? "Make one with New rule: for example, signups below 20 over a day, or a deployment left without its smoke test."
              : "Ask someone with a write:alerts key to make one, or make one with npx wren alerts create."}
          </p>
        </Empty>
      ) : (
        <AlertRulesTable
          site={site}
          rules={rules}
          goalName={goalName}
          k={k}
          canWrite={canWrite}
          historyOf={historyOf}
          actions={actions}
        />
      )}
      {historyRule && (
        <AlertHistoryPanel
          rule={historyRule}
          summary={ruleSummary(historyRule, goalName)}
          k={k}
          onClose={() => {
            setHistoryOf(null);
            document.getElementById(historyButtonId(historyRule))?.focus();
          }}
        />
      )}
    </>
  );
}

export function AlertsScreen({ site }: { site: string }) {
  const rules = useLoad(() => unwrap(api.GET("/api/v1/alerts", { params: { query: { site } } })), [site]);
  const goals = useLoad(() => readGoals(site), [site]);
  const k = useSiteK(site);
  // Goals name what rules watch; while they load, or when they cannot be read, rules show goal ids.
  const goalList = goals.status === "ready" ? goals.data : null;
  return (
    <Loaded load={rules} what="alert rules">
      {(data) => <AlertsBody key={site} site={site} initial={data.alerts} goals={goalList} k={k} />}
    </Loaded>
  );
}
