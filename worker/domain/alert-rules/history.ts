/**
 * A rule's history: its transitions, newest first, each with the notifications it made and their
 * attempts; and its test notifications. Figures are the ones the rule saw (never a suppressed
 * value: a transition happens only on a figure that can be seen).
 */
import type { Client } from "@libsql/client/web";
import type { Database } from "../../lib/db";
import type { AlertState } from "../../lib/schema";
import { storedFigure, type Figure } from "../../reports/figures";
import { requireRule } from "./store";
import type { AlertRule } from "./types";

export const HISTORY_TRANSITIONS = 100;
export const HISTORY_TESTS = 20;

export interface DeliveryRecord {
  webhook_id: string;
  destination: string;
  type: string;
  status: "pending" | "delivered" | "failed";
  attempts: { attempt: number; at: string; status: number | null; error: string | null; duration_ms: number }[];
  next_attempt_at: string | null;
  delivered_at: string | null;
}

export interface RuleHistory {
  rule: string;
  transitions: {
    seq: number;
    at: string;
    from: AlertState;
    to: AlertState;
    figure: Figure;
    window: { start: string; end: string };
    deployment_id: string | null;
    deliveries: DeliveryRecord[];
  }[];
  tests: DeliveryRecord[];
}

const iso = (ms: unknown) => (ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString());

export async function ruleHistory(client: Client, rule: AlertRule): Promise<RuleHistory> {
  const [transitions, outbox, attempts] = await client.batch(
    [
      {
        sql: "SELECT id, seq, at, from_state, to_state, value, qualifier, window_start, window_end, deployment_id FROM alert_transitions WHERE rule_id = ? ORDER BY seq DESC LIMIT ?",
        args: [rule.id, HISTORY_TRANSITIONS],
      },
      {
        sql:
          "SELECT id, transition_id, destination_id, type, status, next_attempt_at, delivered_at, created_at FROM alert_outbox WHERE rule_id = ? " +
          "AND (transition_id IS NOT NULL OR id IN (SELECT id FROM alert_outbox WHERE rule_id = ? AND transition_id IS NULL ORDER BY created_at DESC LIMIT ?)) ORDER BY created_at DESC, id",
        args: [rule.id, rule.id, HISTORY_TESTS],
      },
      {
        sql: "SELECT a.outbox_id, a.attempt, a.at, a.status, a.error, a.duration_ms FROM alert_delivery_attempts a JOIN alert_outbox o ON o.id = a.outbox_id WHERE o.rule_id = ? ORDER BY a.outbox_id, a.attempt",
        args: [rule.id],
      },
    ],
    "read",
  );
  const attemptsOf = new Map<string, DeliveryRecord["attempts"]>();
  for (const a of attempts!.rows) {
    const list = attemptsOf.get(String(a.outbox_id)) ?? [];
    list.push({
      attempt: Number(a.attempt),
      at: iso(a.at)!,
      status: a.status === null ? null : Number(a.status),
      error: a.error === null ? null : String(a.error),
      duration_ms: Number(a.duration_ms),
    });
    attemptsOf.set(String(a.outbox_id), list);
  }
  const byTransition = new Map<string, DeliveryRecord[]>();
  const tests: DeliveryRecord[] = [];
  for (const o of outbox!.rows) {
    const status = String(o.status) as DeliveryRecord["status"];
    const record: DeliveryRecord = {
      webhook_id: String(o.id),
      destination: String(o.destination_id),
      type: String(o.type),
      status,
      attempts: attemptsOf.get(String(o.id)) ?? [],
      next_attempt_at: status === "pending" ? iso(o.next_attempt_at) : null,
      delivered_at: iso(o.delivered_at),
    };
    if (o.transition_id === null) tests.push(record);
    else byTransition.set(String(o.transition_id), [...(byTransition.get(String(o.transition_id)) ?? []), record]);
  }
  return {
    rule: rule.id,
    transitions: transitions!.rows.map((t) => ({
      seq: Number(t.seq),
      at: iso(t.at)!,
      from: String(t.from_state) as AlertState,
      to: String(t.to_state) as AlertState,
      figure: storedFigure(t.value, t.qualifier),
      window: { start: iso(t.window_start)!, end: iso(t.window_end)! },
      deployment_id: t.deployment_id === null ? null : String(t.deployment_id),
      deliveries: byTransition.get(String(t.id)) ?? [],
    })),
    tests,
  };
}

/** The rule's history, if the key may act on its site. */
export async function alertHistory(db: Database, id: string, mayActOn: (siteId: string) => boolean): Promise<RuleHistory> {
  return ruleHistory(db.$client, await requireRule(db, id, mayActOn));
}
