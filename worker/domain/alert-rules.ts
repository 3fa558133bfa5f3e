/**
 * Alert rules, the operator's watch on a counter (worker/alerts/ evaluates them and delivers
 * their notifications):
 *
 * - `threshold`: a site's `pageviews` or `visitors`, or a goal's conversions, `below` or `above`
 *   a threshold over the trailing `window_hours` closed hours, the figure the Overview would show.
 *   The threshold is 1 ("fires when there are none at all") or at least k: a figure is either 0,
 *   suppressed or drawn from k sessions, so a threshold between could only ever be crossed by a
 *   figure no one may see. A smoke-test goal (the operator's synthetic conversions, shown exactly)
 *   takes any threshold, over the window trailing the current minute.
 * - `deployment_without_smoke`: fires when a deployment marker has no smoke-test conversion
 *   beside it `within_minutes` after it was deployed.
 *
 * Each destination's signing secret is derived from the server secret and the destination's
 * id (alerts/secrets.ts): shown once when the destination is made, never stored.
 */
import type { InStatement } from "@libsql/client/web";
import { thresholdAllowed, thresholdRule } from "../lib/alert-threshold";
import { HttpProblem } from "../lib/problem";
import type { Database } from "../lib/db";
import { newId } from "../lib/ids";
import { isSmokeTestGoal } from "../lib/schema";
import type { AlertCondition, AlertKind, AlertMetric, AlertState, DestinationFormat } from "../lib/schema";
import { destinationProblem, parseWebhookAllow } from "../lib/webhook-allow";
import { testStatements } from "../alerts/evaluate";
import { ruleHistory, type RuleHistory } from "../alerts/history";
import { destinationSecret } from "../alerts/secrets";
import { requireGoal } from "./goals";
import { requireSite } from "./sites";

export const DEFAULT_WINDOW_HOURS = 24;
export const DEFAULT_WITHIN_MINUTES = 15;
export const MAX_DESTINATIONS = 5;

export interface DestinationInput {
  url: string;
  format: DestinationFormat;
}

/** A rule as asked for, its shape checked (api/routes/alerts.ts); the rules here check the rest. */
export interface RuleInput {
  site: string;
  kind: AlertKind;
  metric?: AlertMetric;
  goal_id?: string;
  condition?: AlertCondition;
  threshold?: number;
  window_hours?: number;
  for_minutes?: number;
  within_minutes?: number;
  enabled: boolean;
  destinations: DestinationInput[];
}

export interface RuleChanges {
  enabled?: boolean;
  condition?: AlertCondition;
  threshold?: number;
  window_hours?: number;
  for_minutes?: number;
  within_minutes?: number;
  destinations?: DestinationInput[];
}

export interface Destination {
  id: string;
  url: string;
  format: DestinationFormat;
}

/** A rule and its state as stored (alert_rules and its destinations). */
export interface AlertRule {
  id: string;
  siteId: string;
  kind: AlertKind;
  metric: AlertMetric | null;
  goalId: string | null;
  /** True when the goal is a smoke-test goal: exact figures, minute resolution, any threshold. */
  smoke: boolean;
  condition: AlertCondition | null;
  threshold: number | null;
  windowHours: number | null;
  forMinutes: number;
  withinMinutes: number | null;
  enabled: boolean;
  state: AlertState;
  seq: number;
  stateSince: number;
  pendingSince: number | null;
  lastValue: number | null;
  lastQualifier: string | null;
  evaluatedAt: number | null;
  deploymentId: string | null;
  createdAt: number;
  updatedAt: number;
  destinations: Destination[];
}

/** A rule's settings as the API and its notifications name them (snake_case, the site as `site`). */
export interface RuleSettings {
  id: string;
  site: string;
  kind: AlertKind;
  metric: AlertMetric | null;
  goal_id: string | null;
  condition: AlertCondition | null;
  threshold: number | null;
  window_hours: number | null;
  for_minutes: number;
  within_minutes: number | null;
}

export function ruleSettings(rule: AlertRule): RuleSettings {
  return {
    id: rule.id,
    site: rule.siteId,
    kind: rule.kind,
    metric: rule.metric,
    goal_id: rule.goalId,
    condition: rule.condition,
    threshold: rule.threshold,
    window_hours: rule.windowHours,
    for_minutes: rule.forMinutes,
    within_minutes: rule.withinMinutes,
  };
}

/** Where the rule's settings break a rule above: a 422 naming the field. */
function invalid(field: string, message: string): HttpProblem {
  return new HttpProblem(422, `${field}: ${message}`, { field });
}

/** The settings that belong to a kind of rule; another kind's settings are refused by name. */
const THRESHOLD_ONLY = ["metric", "goal_id", "condition", "threshold", "window_hours", "for_minutes"] as const;

/**
 * Checks what a rule's shape cannot: settings of the other kind, the goal of a `goal` metric,
 * the threshold against k, destinations against WREN_WEBHOOK_ALLOW.
 */
async function checkRule(db: Database, input: RuleInput, k: number, allow: string | null | undefined): Promise<void> {
  if (input.kind === "deployment_without_smoke") {
    for (const field of THRESHOLD_ONLY) if (input[field] !== undefined) throw invalid(field, "belongs to threshold rules, not deployment_without_smoke.");
  } else {
    if (input.within_minutes !== undefined) throw invalid("within_minutes", "belongs to deployment_without_smoke rules.");
    if (input.metric === undefined) throw invalid("metric", "is required: goal, pageviews or visitors.");
    if (input.condition === undefined) throw invalid("condition", "is required: below or above.");
    if (input.threshold === undefined) throw invalid("threshold", "is required.");
    if (input.metric === "goal") {
      if (input.goal_id === undefined) throw invalid("goal_id", "is required when metric is goal.");
      const goal = await requireGoal(db, input.site, input.goal_id, "goal_id").catch(() => {
        throw invalid("goal_id", `${input.goal_id} is not a goal of site ${input.site}.`);
      });
      checkThreshold(input.threshold, isSmokeTestGoal(goal), k);
    } else {
      if (input.goal_id !== undefined) throw invalid("goal_id", "belongs to the goal metric only.");
      checkThreshold(input.threshold, false, k);
    }
  }
  checkDestinations(input.destinations, allow);
}

/** 1 or at least k, except on a smoke-test goal (module comment; the words are lib/alert-threshold.ts's, as the dashboard's hint). */
export function checkThreshold(threshold: number, smoke: boolean, k: number): void {
  if (thresholdAllowed(threshold, smoke, k)) return;
  throw invalid("threshold", `must be ${thresholdRule(k)}.`);
}

function checkDestinations(destinations: DestinationInput[], allowText: string | null | undefined): void {
  const allow = parseWebhookAllow(allowText);
  destinations.forEach((d, i) => {
    const problem = destinationProblem(d.url, allow);
    if (problem) throw new HttpProblem(422, `destinations[${i}].url: ${problem}.`, { field: "url", pointer: `/destinations/${i}/url` });
  });
}

export interface Settings {
  k: number;
  serverSecret: string;
  /** WREN_WEBHOOK_ALLOW. */
  webhookAllow: string | null | undefined;
}

/** A rule with its destinations' secrets, shown this once. */
export interface CreatedRule {
  rule: AlertRule;
  secrets: Map<string, string>;
}

function destinationRows(destinations: DestinationInput[]): Destination[] {
  return destinations.map((d) => ({ id: newId("dst"), url: d.url, format: d.format }));
}

function destinationInserts(ruleId: string, destinations: Destination[]): InStatement[] {
  return destinations.map((d, position) => ({
    sql: "INSERT INTO alert_destinations (id, rule_id, position, url, format) VALUES (?, ?, ?, ?, ?)",
    args: [d.id, ruleId, position, d.url, d.format],
  }));
}

async function secretsOf(serverSecret: string, destinations: Destination[]): Promise<Map<string, string>> {
  return new Map(await Promise.all(destinations.map(async (d) => [d.id, await destinationSecret(serverSecret, d.id)] as const)));
}

export async function createRule(db: Database, input: RuleInput, settings: Settings, now: number): Promise<CreatedRule> {
  await requireSite(db, input.site, "site");
  await checkRule(db, input, settings.k, settings.webhookAllow);
  const id = newId("alr");
  const threshold = input.kind === "threshold";
  const destinations = destinationRows(input.destinations);
  await db.$client.batch(
    [
      {
        sql:
          "INSERT INTO alert_rules (id, site_id, kind, metric, goal_id, condition, threshold, window_hours, for_minutes, within_minutes, " +
          "enabled, state, seq, state_since, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ok', 0, ?, ?, ?)",
        args: [
          id,
          input.site,
          input.kind,
          input.metric ?? null,
          input.goal_id ?? null,
          input.condition ?? null,
          input.threshold ?? null,
          threshold ? (input.window_hours ?? DEFAULT_WINDOW_HOURS) : null,
          threshold ? (input.for_minutes ?? 0) : 0,
          threshold ? null : (input.within_minutes ?? DEFAULT_WITHIN_MINUTES),
          input.enabled ? 1 : 0,
          now,
          now,
          now,
        ],
      },
      ...destinationInserts(id, destinations),
    ],
    "write",
  );
  const rule = (await findRule(db, id))!;
  return { rule, secrets: await secretsOf(settings.serverSecret, destinations) };
}

/**
 * Changes a rule. A new threshold, condition or window restarts the wait of for_minutes; new
 * destinations replace the old ones (and get new secrets); the state is kept.
 */
export async function updateRule(
  db: Database,
  id: string,
  changes: RuleChanges,
  settings: Settings,
  mayActOn: (siteId: string) => boolean,
  now: number,
): Promise<CreatedRule> {
  const rule = await requireRule(db, id, mayActOn);
  const merged: RuleInput = {
    site: rule.siteId,
    kind: rule.kind,
    ...(rule.kind === "threshold"
      ? {
          metric: rule.metric!,
          ...(rule.goalId ? { goal_id: rule.goalId } : {}),
          condition: changes.condition ?? rule.condition!,
          threshold: changes.threshold ?? rule.threshold!,
          window_hours: changes.window_hours ?? rule.windowHours!,
          for_minutes: changes.for_minutes ?? rule.forMinutes,
        }
      : { within_minutes: changes.within_minutes ?? rule.withinMinutes! }),
    enabled: changes.enabled ?? rule.enabled,
    destinations: changes.destinations ?? rule.destinations,
  };
  if (rule.kind === "deployment_without_smoke") {
    for (const field of THRESHOLD_ONLY) if (field in changes) throw invalid(field, "belongs to threshold rules, not deployment_without_smoke.");
  } else if (changes.within_minutes !== undefined) throw invalid("within_minutes", "belongs to deployment_without_smoke rules.");
  await checkRule(db, merged, settings.k, settings.webhookAllow);
  const destinations = changes.destinations ? destinationRows(changes.destinations) : [];
  const restartWait = changes.condition !== undefined || changes.threshold !== undefined || changes.window_hours !== undefined;
  await db.$client.batch(
    [
      {
        sql:
          "UPDATE alert_rules SET enabled = ?, condition = ?, threshold = ?, window_hours = ?, for_minutes = ?, within_minutes = ?, " +
          "pending_since = CASE WHEN ? THEN NULL ELSE pending_since END, updated_at = ? WHERE id = ?",
        args: [
          merged.enabled ? 1 : 0,
          merged.condition ?? null,
          merged.threshold ?? null,
          merged.window_hours ?? null,
          merged.for_minutes ?? 0,
          merged.within_minutes ?? null,
          restartWait ? 1 : 0,
          now,
          id,
        ],
      },
      ...(changes.destinations
        ? [
            // Undelivered notifications to the replaced destinations go with them.
            { sql: "DELETE FROM alert_outbox WHERE rule_id = ? AND status = 'pending'", args: [id] },
            { sql: "DELETE FROM alert_destinations WHERE rule_id = ?", args: [id] },
            ...destinationInserts(id, destinations),
          ]
        : []),
    ],
    "write",
  );
  return { rule: (await findRule(db, id))!, secrets: await secretsOf(settings.serverSecret, destinations) };
}

/** Statements that delete rules chosen by `where` (over alert_rules) with everything of theirs. */
export function ruleDeletes(where: string, args: (string | number)[]): InStatement[] {
  const rules = `SELECT id FROM alert_rules WHERE ${where}`;
  return [
    { sql: `DELETE FROM alert_delivery_attempts WHERE outbox_id IN (SELECT id FROM alert_outbox WHERE rule_id IN (${rules}))`, args },
    { sql: `DELETE FROM alert_outbox WHERE rule_id IN (${rules})`, args },
    { sql: `DELETE FROM alert_transitions WHERE rule_id IN (${rules})`, args },
    { sql: `DELETE FROM alert_destinations WHERE rule_id IN (${rules})`, args },
    { sql: `DELETE FROM alert_rules WHERE ${where}`, args },
  ];
}

export async function deleteRule(db: Database, id: string, mayActOn: (siteId: string) => boolean): Promise<void> {
  await requireRule(db, id, mayActOn);
  await db.$client.batch(ruleDeletes("id = ?", [id]), "write");
}

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
      { sql: `SELECT ${RULE_COLUMNS} FROM alert_rules r LEFT JOIN goals g ON g.id = r.goal_id WHERE ${where} ORDER BY r.created_at, r.id`, args },
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
  if (!rule || !mayActOn(rule.siteId)) throw new HttpProblem(404, `No alert rule ${id} on a site this key may act on.`, { field: "id" });
  return rule;
}

export async function siteRules(db: Database, siteId: string): Promise<AlertRule[]> {
  await requireSite(db, siteId, "site");
  return loadRules(db.$client, "r.site_id = ?", [siteId]);
}

export { ALERT_CONDITIONS, ALERT_KINDS, ALERT_METRICS, DESTINATION_FORMATS } from "../lib/schema";

/** The rule's history (alerts/history.ts). */
export async function alertHistory(db: Database, id: string, mayActOn: (siteId: string) => boolean): Promise<RuleHistory> {
  return ruleHistory(db.$client, await requireRule(db, id, mayActOn));
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
