/**
 * Reading rules: each with its destinations, in one read batch; the one lookup (requireRule)
 * every route goes through, one 404 whether the rule is missing or on another key's site.
 */
import type { InStatement } from "@libsql/client/web";
import { HttpProblem } from "../../lib/problem";
import type { Database } from "../../lib/db";
import type { AlertCondition, AlertKind, AlertMetric, AlertState, DestinationFormat } from "../../lib/schema";
import { requireSite } from "../sites";
import type { AlertRule, Destination } from "./types";

const RULE_COLUMNS =
  "r.id, r.site_id, r.kind, r.metric, r.goal_id, r.condition, r.threshold, r.window_hours, r.for_minutes, r.within_minutes, r.enabled, " +
  "r.state, r.seq, r.state_since, r.pending_since, r.last_value, r.last_qualifier, r.evaluated_at, r.deployment_id, r.created_at, r.updated_at, " +
  "coalesce(g.purpose = 'smoke-test' AND g.kind = 'event', 0) AS smoke";

type Row = Record<string, unknown>;
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = <T extends string>(v: unknown): T | null => (v === null || v === undefined ? null : (String(v) as T));

function ruleOf(r: Row, destinations: Destination[]): AlertRule {
  return {
    id: String(r.id),
    siteId: String(r.site_id),
    kind: String(r.kind) as AlertKind,
    metric: str<AlertMetric>(r.metric),
    goalId: str(r.goal_id),
    smoke: Number(r.smoke) === 1,
    condition: str<AlertCondition>(r.condition),
    threshold: num(r.threshold),
    windowHours: num(r.window_hours),
    forMinutes: Number(r.for_minutes),
    withinMinutes: num(r.within_minutes),
    enabled: Number(r.enabled) === 1,
    state: String(r.state) as AlertState,
    seq: Number(r.seq),
    stateSince: Number(r.state_since),
    pendingSince: num(r.pending_since),
    lastValue: num(r.last_value),
    lastQualifier: str(r.last_qualifier),
    evaluatedAt: num(r.evaluated_at),
    deploymentId: str(r.deployment_id),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    destinations,
  };
}

/** Reads rules chosen by `where` (over alert_rules r) with their destinations, oldest first. */
export async function loadRules(
  client: { batch(statements: InStatement[], mode: "read"): Promise<{ rows: Row[] }[]> },
  where: string,
  args: (string | number)[],
): Promise<AlertRule[]> {
  const [rules, destinations] = await client.batch(
    [
      {
        sql: `SELECT ${RULE_COLUMNS} FROM alert_rules r LEFT JOIN goals g ON g.id = r.goal_id WHERE ${where} ORDER BY r.created_at, r.id`,
        args,
      },
      {
        sql: `SELECT d.id, d.rule_id, d.url, d.format FROM alert_destinations d WHERE d.rule_id IN (SELECT r.id FROM alert_rules r WHERE ${where}) ORDER BY d.rule_id, d.position`,
        args,
      },
    ],
    "read",
  );
  const byRule = new Map<string, Destination[]>();
  for (const d of destinations!.rows) {
    const list = byRule.get(String(d.rule_id)) ?? [];
    list.push({ id: String(d.id), url: String(d.url), format: String(d.format) as DestinationFormat });
    byRule.set(String(d.rule_id), list);
  }
  return rules!.rows.map((r) => ruleOf(r, byRule.get(String(r.id)) ?? []));
}

export async function findRule(db: Database, id: string): Promise<AlertRule | null> {
  return (await loadRules(db.$client, "r.id = ?", [id]))[0] ?? null;
}

/** The rule, or one 404 whether it does not exist or is on a site the key may not act on. */
export async function requireRule(db: Database, id: string, mayActOn: (siteId: string) => boolean): Promise<AlertRule> {
  const rule = await findRule(db, id);
  if (!rule || !mayActOn(rule.siteId))
    throw new HttpProblem(404, `No alert rule ${id} on a site this key may act on.`, { field: "id" });
  return rule;
}

export async function siteRules(db: Database, siteId: string): Promise<AlertRule[]> {
  await requireSite(db, siteId, "site");
  return loadRules(db.$client, "r.site_id = ?", [siteId]);
}
