/**
 * One rule's history (GET /api/v1/alerts/{id}/history): its state changes, newest first, with
 * the figure each was decided on and every delivery of its notification, attempt by attempt;
 * then its latest test notifications.
 */
import { DetailPanel } from "../../ui/panel";
import { api, unwrap, type Schemas } from "../../api/client";
import { useLoad } from "../../state/load";
import type { AlertRule } from "./describe";
import { AlertFigure } from "./figure";
import { When } from "../../ui/when";
import { Empty, Loaded } from "../../ui/states";

type History = Schemas["AlertHistory"];
type Delivery = History["tests"][number];
type Attempt = Delivery["attempts"][number];

function attemptText(a: Attempt): string {
  const outcome = a.status !== null ? `HTTP ${a.status}` : `no answer: ${a.error ?? "unknown error"}`;
  return `${outcome}, ${a.duration_ms} ms`;
}

function DeliveryStatus({ delivery }: { delivery: Delivery }) {
  const n = delivery.attempts.length;
  const tries = `${n} ${n === 1 ? "attempt" : "attempts"}`;
  return (
    <span class={`delivery ${delivery.status}`}>
      <strong>{delivery.status}</strong>
      {delivery.status === "delivered" && delivery.delivered_at && (
        <>
          {" "}
          <When iso={delivery.delivered_at} />
        </>
      )}
      {delivery.status === "pending" && delivery.next_attempt_at && (
        <>
          , next attempt <When iso={delivery.next_attempt_at} />
        </>
      )}
      {`, ${tries}`}
    </span>
  );
}

function Attempts({ attempts }: { attempts: Attempt[] }) {
  if (attempts.length === 0) return null;
  return (
    <details>
      <summary>Attempts</summary>
      <ol class="alert-attempts">
        {attempts.map((a) => (
          <li key={a.attempt}>
            <When iso={a.at} />: {attemptText(a)}
          </li>
        ))}
      </ol>
    </details>
  );
}

function Deliveries({ deliveries, urlOf }: { deliveries: Delivery[]; urlOf: (id: string) => string }) {
  if (deliveries.length === 0) return <span class="muted">None</span>;
  return (
    <ul class="alert-deliveries">
      {deliveries.map((d) => (
        <li key={d.webhook_id}>
          <span class="ak-url">{urlOf(d.destination)}</span>: <DeliveryStatus delivery={d} />
          <Attempts attempts={d.attempts} />
        </li>
      ))}
    </ul>
  );
}

function Transitions({ history, urlOf, k }: { history: History; urlOf: (id: string) => string; k: number | null }) {
  if (history.transitions.length === 0) {
    return (
      <Empty>
        <p>
          No state changes yet: the rule is ok until its condition holds. Use Send test to check that your receivers get its
          notifications.
        </p>
      </Empty>
    );
  }
  return (
    <div class="table-wrap">
      <table>
        <caption>State changes, newest first (the latest 100)</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Change</th>
            <th scope="col">Figure</th>
            <th scope="col">Window</th>
            <th scope="col">Deliveries</th>
          </tr>
        </thead>
        <tbody>
          {history.transitions.map((t) => (
            <tr key={t.seq}>
              <th scope="row">
                <When iso={t.at} />
              </th>
              <td>
                <span class={`badge ${t.from}`}>{t.from}</span> to <span class={`badge ${t.to}`}>{t.to}</span>
                {t.deployment_id && (
                  <div class="hint">
                    Deployment <code>{t.deployment_id}</code>
                  </div>
                )}
              </td>
              <td>
                <AlertFigure figure={t.figure} k={k} />
              </td>
              <td>
                <When iso={t.window.start} /> to <When iso={t.window.end} />
              </td>
              <td>
                <Deliveries deliveries={t.deliveries} urlOf={urlOf} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Tests({ tests, urlOf }: { tests: Delivery[]; urlOf: (id: string) => string }) {
  if (tests.length === 0) return <p class="muted">No test notifications yet.</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption>Test notifications, newest first (the latest 20)</caption>
        <thead>
          <tr>
            <th scope="col">Message</th>
            <th scope="col">Destination</th>
            <th scope="col">Delivery</th>
          </tr>
        </thead>
        <tbody>
          {tests.map((d) => (
            <tr key={d.webhook_id}>
              <th scope="row">
                <code>{d.webhook_id}</code>
              </th>
              <td class="ak-url">{urlOf(d.destination)}</td>
              <td>
                <DeliveryStatus delivery={d} />
                <Attempts attempts={d.attempts} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function AlertHistoryPanel({
  rule,
  summary,
  k,
  onClose,
}: {
  rule: AlertRule;
  summary: string;
  k: number | null;
  onClose: () => void;
}) {
  const load = useLoad(() => unwrap(api.GET("/api/v1/alerts/{id}/history", { params: { path: { id: rule.id } } })), [rule.id]);
  // A destination replaced since keeps its id in the history; only the current ones have a URL here.
  const urlOf = (id: string) => rule.destinations.find((d) => d.id === id)?.url ?? id;
  return (
    <DetailPanel
      id="alert-history"
      class="alert-history"
      title={`History: ${summary}`}
      subject={rule.id}
      closeLabel="Close history"
      onRefresh={load.reload}
      onClose={onClose}
    >
      <Loaded load={load} what="the rule's history">
        {(history) => (
          <>
            <Transitions history={history} urlOf={urlOf} k={k} />
            <h3>Test notifications</h3>
            <Tests tests={history.tests} urlOf={urlOf} />
          </>
        )}
      </Loaded>
    </DetailPanel>
  );
}
