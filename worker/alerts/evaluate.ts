/**
 * One evaluation pass over every enabled rule: read each site's figures once (figures.ts), decide
 * each rule (decide.ts), and write what changed. A transition, its history row and one outbox row
 * per destination are one write transaction, so a notification exists exactly when its
 * transition does, and the sender (outbox.ts) finds it even after a crash.
 *
 * Once across boxes: the pass runs only under the evaluator lease (lease.ts); and every write is
 * conditional on the rule's `seq` being the one read and the lease still held, with the
 * transition's id `rule:seq` — so a second evaluator, or one that lost its lease mid-pass,
 * writes nothing.
 */
import type { Client, InStatement } from "@libsql/client/web";
import { loadRules, notification, type AlertRule } from "../domain/alert-rules";
import { readOnly } from "../lib/read-only";
import { decide, type Decision } from "./decide";
import { siteReadings, type RuleReading } from "./figures";
import { EVALUATOR_LEASE, leaseHeld, takeLease } from "../lib/lease";

export interface EvaluationOptions {
  now: number;
  /** This box's id: the lease holder. */
  holder: string;
  k: number;
  publicUrl: string;
  /** How long the lease lasts: several passes, so a live holder keeps it. */
  leaseMs: number;
}

export interface EvaluationRun {
  /** False when another box holds the lease: this one evaluated nothing. */
  leader: boolean;
  rules: number;
  transitions: number;
}

/** The outbox row id (the `webhook-id`) of a transition's notification to one destination. */
export function transitionMessageId(ruleId: string, seq: number, position: number): string {
  return `msg_${ruleId.slice(4)}.${seq}.${position}`;
}

export async function evaluateRules(client: Client, options: EvaluationOptions): Promise<EvaluationRun> {
  if (!(await takeLease(client, EVALUATOR_LEASE, options.holder, options.now, options.leaseMs))) return { leader: false, rules: 0, transitions: 0 };
  const rules = await loadRules(client, "r.enabled = 1", []);
  const bySite = new Map<string, AlertRule[]>();
  for (const rule of rules) bySite.set(rule.siteId, [...(bySite.get(rule.siteId) ?? []), rule]);
  const reader = readOnly(client);
  const updates: InStatement[] = [];
  let transitions = 0;
  for (const [siteId, siteRules] of bySite) {
    const readings = await siteReadings(reader, siteId, siteRules, options.k, options.now);
    for (const rule of siteRules) {
      const reading = readings.get(rule.id);
      const decision = decide(rule, reading);
      if (decision.transition && reading) {
        await client.batch(transitionStatements(rule, reading, decision, options), "write");
        transitions++;
      } else updates.push(stateUpdate(rule, reading, decision, options));
    }
  }
  if (updates.length > 0) await client.batch(updates, "write");
  return { leader: true, rules: rules.length, transitions };
}

const held = leaseHeld(EVALUATOR_LEASE);

/** The figure, pending time and evaluation time of a rule whose state did not change. */
function stateUpdate(rule: AlertRule, reading: RuleReading | undefined, decision: Decision, o: EvaluationOptions): InStatement {
  const figure = reading ? "last_value = ?, last_qualifier = ?, " : "";
  return {
    sql: `UPDATE alert_rules SET pending_since = ?, ${figure}evaluated_at = ? WHERE id = ? AND seq = ? AND ${held}`,
    args: [decision.pendingSince, ...(reading ? [reading.figure.value, reading.figure.qualifier] : []), o.now, rule.id, rule.seq, o.holder, o.now],
  };
}

/** The transition, its notifications and the rule's new state: all or nothing, once (module comment). */
function transitionStatements(rule: AlertRule, reading: RuleReading, decision: Decision, o: EvaluationOptions): InStatement[] {
  const seq = rule.seq + 1;
  const transitionId = `${rule.id}:${seq}`;
  const { from, to } = decision.transition!;
  const type = to === "firing" ? "alert.firing" : "alert.resolved";
  const body = JSON.stringify(
    notification(type, rule, { from, to, at: new Date(o.now).toISOString() }, reading.figure, reading.window, reading.deployment, o.publicUrl, o.now),
  );
  return [
    {
      sql:
        "INSERT OR IGNORE INTO alert_transitions (id, rule_id, seq, at, from_state, to_state, value, qualifier, window_start, window_end, deployment_id) " +
        `SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM alert_rules WHERE id = ? AND seq = ? AND enabled = 1) AND ${held}`,
      args: [
        transitionId,
        rule.id,
        seq,
        o.now,
        from,
        to,
        reading.figure.value,
        reading.figure.qualifier,
        reading.window.fromMs,
        reading.window.toMs,
        reading.deployment?.id ?? null,
        rule.id,
        rule.seq,
        o.holder,
        o.now,
      ],
    },
    ...rule.destinations.map((d, position) => ({
      sql:
        "INSERT OR IGNORE INTO alert_outbox (id, rule_id, transition_id, destination_id, type, payload, next_attempt_at, created_at) " +
        "SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM alert_transitions WHERE id = ?) AND EXISTS (SELECT 1 FROM alert_rules WHERE id = ? AND seq = ?)",
      args: [transitionMessageId(rule.id, seq, position), rule.id, transitionId, d.id, type, body, o.now, o.now, transitionId, rule.id, rule.seq],
    })),
    {
      sql:
        "UPDATE alert_rules SET state = ?, seq = ?, state_since = ?, pending_since = NULL, last_value = ?, last_qualifier = ?, evaluated_at = ?, " +
        "deployment_id = coalesce(?, deployment_id) WHERE id = ? AND seq = ? AND EXISTS (SELECT 1 FROM alert_transitions WHERE id = ?)",
      args: [to, seq, o.now, reading.figure.value, reading.figure.qualifier, o.now, reading.deployment?.id ?? null, rule.id, rule.seq, transitionId],
    },
  ];
}
