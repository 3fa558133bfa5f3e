/**
 * A site's alert rules as a table: what each watches, its condition and window, its state
 * and since when, paused or not; and, for a key with write:alerts, the buttons that change it.
 */
import { useState } from "preact/hooks";
import { ConfirmButton } from "../../ui/confirm";
import { KIND_LABELS, conditionText, watchesText, windowText, type AlertRule, type GoalName } from "./describe";
import { AlertFigure } from "./figure";
import { When } from "../../ui/when";
import { siteName } from "../../state/sites";

export interface RuleActions {
  /** Pause (false) or resume (true). */
  setEnabled(rule: AlertRule, enabled: boolean): Promise<unknown>;
  sendTest(rule: AlertRule): Promise<unknown>;
  remove(rule: AlertRule): Promise<unknown>;
  toggleHistory(rule: AlertRule): void;
}

export const historyButtonId = (rule: AlertRule) => `alert-history-button-${rule.id}`;
const headerId = (rule: AlertRule) => `alert-rule-${rule.id}`;

/**
 * A rule's status as shown: "pending" until it has judged a figure (an ok rule without one has
 * not been evaluated, or has nothing to judge yet: an hourly rule whose window still reaches
 * before the site existed, a deployment rule with no marker due), so "ok" is never claimed
 * before the first evaluation.
 */
export function shownStatus(rule: AlertRule): "ok" | "firing" | "pending" {
  return rule.state.status === "ok" && rule.state.figure === null ? "pending" : rule.state.status;
}

function pendingText(rule: AlertRule): string {
  if (rule.state.evaluated_at === null) return "Not evaluated yet";
  return rule.kind === "deployment_without_smoke"
    ? "No deployment to check yet"
    : "No figure to judge yet: its window must lie after the site's creation";
}

function StateCell({ rule, k }: { rule: AlertRule; k: number | null }) {
  const { state } = rule;
  const status = shownStatus(rule);
  return (
    <td>
      <span class={`badge ${status}`}>{status}</span>
      <div class="hint">
        {status === "pending" ? (
          pendingText(rule)
        ) : state.figure ? (
          <>
            Last figure <AlertFigure figure={state.figure} k={k} />
          </>
        ) : (
          <>
            Checked <When iso={state.evaluated_at} />
          </>
        )}
        {state.pending_since && (
          <div>
            Holding since <When iso={state.pending_since} />
          </div>
        )}
        {state.deployment_id && (
          <div>
            Deployment <code>{state.deployment_id}</code>
          </div>
        )}
      </div>
    </td>
  );
}

function Actions({
  rule,
  canWrite,
  historyOpen,
  actions,
}: {
  rule: AlertRule;
  canWrite: boolean;
  historyOpen: boolean;
  actions: RuleActions;
}) {
  const [busy, setBusy] = useState<"pause" | "test" | null>(null);
  // aria-disabled rather than disabled while busy: a disabled button would drop the keyboard focus.
  const run = (what: "pause" | "test", job: () => Promise<unknown>) => {
    if (busy) return;
    setBusy(what);
    void job().finally(() => setBusy(null));
  };
  return (
    <td>
      <div class="ak-actions">
        <button
          type="button"
          id={historyButtonId(rule)}
          aria-expanded={historyOpen}
          aria-controls={historyOpen ? "alert-history" : undefined}
          aria-describedby={headerId(rule)}
          onClick={() => actions.toggleHistory(rule)}
        >
          History
        </button>
        {canWrite && (
          <>
            <button
              type="button"
              aria-disabled={busy !== null ? "true" : undefined}
              aria-describedby={headerId(rule)}
              onClick={() => run("pause", () => actions.setEnabled(rule, !rule.enabled))}
            >
              {busy === "pause" ? (rule.enabled ? "Pausing…" : "Resuming…") : rule.enabled ? "Pause" : "Resume"}
            </button>
            <button
              type="button"
              aria-disabled={busy !== null ? "true" : undefined}
              aria-describedby={headerId(rule)}
              onClick={() => run("test", () => actions.sendTest(rule))}
            >
              {busy === "test" ? "Sending…" : "Send test"}
            </button>
            <ConfirmButton
              label="Delete"
              question="Delete this rule with its history and unsent notifications?"
              confirmLabel="Delete rule"
              busyLabel="Deleting…"
              describedBy={headerId(rule)}
              onConfirm={() => actions.remove(rule)}
            />
          </>
        )}
      </div>
    </td>
  );
}

export function AlertRulesTable({
  site,
  rules,
  goalName,
  k,
  canWrite,
  historyOf,
  actions,
}: {
  site: string;
  rules: AlertRule[];
  goalName: GoalName;
  k: number | null;
  canWrite: boolean;
  historyOf: string | null;
  actions: RuleActions;
}) {
  return (
    <div class="table-wrap">
      <table class="alert-rules">
        <caption>Alert rules of {siteName(site)}, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Watches</th>
            <th scope="col">Kind</th>
            <th scope="col">Condition</th>
            <th scope="col">Window</th>
            <th scope="col">State</th>
            <th scope="col">Since</th>
            <th scope="col">Enabled</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rules.map((rule) => (
            <tr key={rule.id} data-rule={rule.id} class={rule.enabled ? undefined : "paused"}>
              <th scope="row" id={headerId(rule)}>
                {watchesText(rule, goalName)}
                <div class="hint">
                  <code>{rule.id}</code>
                </div>
              </th>
              <td>{KIND_LABELS[rule.kind]}</td>
              <td>{conditionText(rule)}</td>
              <td>{windowText(rule)}</td>
              <StateCell rule={rule} k={k} />
              <td class="ak-nowrap">
                <When iso={rule.state.since} />
              </td>
              <td>{rule.enabled ? "Enabled" : "Paused"}</td>
              <Actions rule={rule} canWrite={canWrite} historyOpen={historyOf === rule.id} actions={actions} />
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
