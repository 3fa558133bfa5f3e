/**
 * Test notifications: an `alert.test` to each of a rule's destinations, queued through the
 * outbox like any other notification (worker/alerts/ sends it), with the rule's last figure.
 */
import type { InStatement } from "@libsql/client/web";
import type { Database } from "../../lib/db";
import { newId } from "../../lib/ids";
import { storedFigure } from "../../reports/figures";
import { notification } from "./notification";
import { requireRule } from "./store";
import type { AlertRule } from "./types";

/** An `alert.test` for each of the rule's destinations, through the outbox; the ids of the rows. */
export function testStatements(rule: AlertRule, now: number, publicUrl: string): { ids: string[]; statements: InStatement[] } {
  const figure = storedFigure(rule.lastValue, rule.lastQualifier);
  const body = JSON.stringify(notification("alert.test", rule, null, figure, { fromMs: now, toMs: now }, null, publicUrl, now));
  const ids = rule.destinations.map(() => newId("msg"));
  return {
    ids,
    statements: rule.destinations.map((d, i) => ({
      sql: "INSERT INTO alert_outbox (id, rule_id, transition_id, destination_id, type, payload, next_attempt_at, created_at) VALUES (?, ?, NULL, ?, 'alert.test', ?, ?, ?)",
      args: [ids[i]!, rule.id, d.id, body, now, now],
    })),
  };
}

/** Queues an `alert.test` to each destination through the outbox; each destination's message id. */
export async function queueTestNotifications(
  db: Database,
  id: string,
  mayActOn: (siteId: string) => boolean,
  now: number,
  publicUrl: string,
): Promise<{ destination: string; webhook_id: string }[]> {
  const rule = await requireRule(db, id, mayActOn);
  const { ids, statements } = testStatements(rule, now, publicUrl);
  await db.$client.batch(statements, "write");
  return rule.destinations.map((d, i) => ({ destination: d.id, webhook_id: ids[i]! }));
}
