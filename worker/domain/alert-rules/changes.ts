/**
 * Making, changing and deleting rules. Each destination gets a new id, from which its signing
 * secret is derived (secrets.ts): the answer that makes a destination shows its secret once.
 */
import type { InStatement } from "@libsql/client/web";
import type { Database } from "../../lib/db";
import { newId } from "../../lib/ids";
import { requireSite } from "../sites";
import { destinationSecret } from "./secrets";
import { findRule, requireRule } from "./store";
import {
  DEFAULT_WINDOW_HOURS,
  DEFAULT_WITHIN_MINUTES,
  type AlertRule,
  type Destination,
  type DestinationInput,
  type RuleChanges,
  type RuleInput,
} from "./types";
import { checkRule, invalid, THRESHOLD_ONLY } from "./validate";

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
    for (const field of THRESHOLD_ONLY)
      if (field in changes) throw invalid(field, "belongs to threshold rules, not deployment_without_smoke.");
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
    {
      sql: `DELETE FROM alert_delivery_attempts WHERE outbox_id IN (SELECT id FROM alert_outbox WHERE rule_id IN (${rules}))`,
      args,
    },
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
