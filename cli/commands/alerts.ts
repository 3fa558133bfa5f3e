/**
 * `wren alerts create|list|delete`: alert rules as the operator (no key). A rule made here goes
 * through exactly what `POST /api/v1/alerts` does: the route's own body schema (its shape and
 * ranges), then worker/domain/alert-rules/ createRule with the settings the service runs with —
 * k from WREN_K_ANONYMITY, the server secret, WREN_WEBHOOK_ALLOW — so the CLI refuses what the
 * API refuses, with the same messages, and prints each destination's signing secret this once.
 *
 * The route module is loaded by path: its types are workerd's (the Node project does not
 * typecheck worker/api/routes), but it loads in Node, as the OpenAPI contract test shows.
 */
import type { z } from "zod";
import { toAlertRule } from "../../worker/api/resources";
import {
  createRule,
  deleteRule,
  MAX_DESTINATIONS,
  siteRules,
  type AlertRule,
  type RuleInput,
} from "../../worker/domain/alert-rules";
import { alertRuleId } from "../../worker/lib/ids";
import { describeIssue } from "../../worker/lib/issues";
import { HttpProblem } from "../../worker/lib/problem";
import { parseWebhookAllow, WebhookAllowError } from "../../worker/lib/webhook-allow";
import { kAnonymity } from "../../worker/reports/privacy";
import { openExistingDatabase } from "../database";
import { CliError, print, table } from "../output";
import { requireSecret } from "../secret";
import type { Settings } from "../settings";
import { openSite, openSiteFlag } from "../site";
import { kAnonymitySetting } from "../workerd";
import type { ALERTS_CREATE_OPTIONS, ALERTS_DELETE_OPTIONS, ALERTS_LIST_OPTIONS, Invocation } from "./registry";

const ROUTES = new URL("../../worker/api/routes/alerts.ts", import.meta.url).href;

/** The body schema of POST /api/v1/alerts (module comment). */
async function createBodySchema(): Promise<z.ZodType<RuleInput>> {
  const { alertRoutes } = (await import(ROUTES)) as { alertRoutes: { operationId: string; body?: z.ZodType<RuleInput> }[] };
  const body = alertRoutes.find((r) => r.operationId === "createAlertRule")?.body;
  if (!body) throw new Error("the createAlertRule route declares no body");
  return body;
}

/** A number flag as the API would receive it: absent stays absent, anything else a number (NaN is refused). */
const numberFlag = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : value.trim() === "" ? Number.NaN : Number(value);

/** The rule in words (as the Slack message says it, alerts/payload.ts). */
export function describeRule(rule: AlertRule): string {
  if (rule.kind === "deployment_without_smoke") return `a deployment without a smoke conversion within ${rule.withinMinutes} min`;
  const what = rule.metric === "goal" ? `conversions of ${rule.goalId}` : rule.metric;
  return `${what} ${rule.condition} ${rule.threshold} over ${rule.windowHours} h${rule.forMinutes > 0 ? ` for ${rule.forMinutes} min` : ""}`;
}

/** The flag an API field comes from, for a refusal's message. */
function flagOf(field: string, input: Partial<RuleInput>): string {
  const destination = /^destinations(?:[.[](\d+)\]?)?(?:\.(url|format))?$/.exec(field);
  if (destination) {
    const url = destination[1] === undefined ? undefined : input.destinations?.[Number(destination[1])]?.url;
    return destination[2] === "format" ? "--format" : url ? `--url ${url}` : "--url";
  }
  const condition = input.condition ? `--${input.condition}` : "--below/--above";
  const flags: Record<string, string> = {
    goal_id: "--goal",
    condition,
    threshold: `${condition} (threshold)`,
    window_hours: "--window-hours",
    for_minutes: "--for-minutes",
    within_minutes: "--within-minutes",
  };
  return flags[field] ?? `--${field.replace(/_/g, "-")}`;
}

/** A refusal of the domain (a 422 naming its field) as the CLI says it; anything else as it is. */
function refusal(error: unknown, input: Partial<RuleInput>): unknown {
  if (!(error instanceof HttpProblem) || error.status !== 422) return error;
  const pointer = typeof error.extra.pointer === "string" ? error.extra.pointer.slice(1).replace(/\//g, ".") : undefined;
  const field = pointer ?? error.extra.field ?? "body";
  const message = error.detail.replace(/^[a-z_]+(?:\[\d+\]\.[a-z_]+)?: /, "");
  return new CliError(`${flagOf(field, input)}: ${message}`, 2);
}

/** WREN_WEBHOOK_ALLOW as the service reads it; a malformed one is refused here as at start. */
function webhookAllowSetting(): string | undefined {
  const value = process.env.WREN_WEBHOOK_ALLOW;
  try {
    parseWebhookAllow(value);
  } catch (error) {
    if (error instanceof WebhookAllowError) throw new CliError(`WREN_WEBHOOK_ALLOW: ${error.message}`);
    throw error;
  }
  return value;
}

/** The object without its undefined fields. */
function present<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function destinationsOf(urls: string[], formats: string[]): Partial<{ url: string; format: string }>[] {
  if (urls.length === 0) throw new CliError("--url: a destination is required (repeat --url for more, at most 5)", 2);
  if (urls.length > MAX_DESTINATIONS) throw new CliError(`--url: at most ${MAX_DESTINATIONS} destinations`, 2);
  if (formats.length > 1 && formats.length !== urls.length)
    throw new CliError("--format: give one (for every --url) or one per --url, in the same order", 2);
  return urls.map((url, i) => present({ url, format: formats.length === 1 ? formats[0] : formats[i] }));
}

export async function deleteAlert(
  settings: Settings,
  { values, positionals }: Invocation<typeof ALERTS_DELETE_OPTIONS>,
): Promise<void> {
  const id = positionals[0]!;
  if (!alertRuleId.safeParse(id).success) throw new CliError(`RULE_ID: ${id} must be an alert rule id (alr_…)`, 2);
  const db = await openExistingDatabase(settings);
  try {
    await deleteRule(db, id, () => true);
  } catch (error) {
    if (error instanceof HttpProblem && error.status === 404) throw new CliError(`no alert rule ${id}`, 1, "not_found");
    throw error;
  }
  print(
    values.json ?? false,
    { id, deleted: true },
    () => `Deleted alert rule ${id} (with its history and undelivered notifications).`,
  );
}

export async function listAlerts(settings: Settings, { values }: Invocation<typeof ALERTS_LIST_OPTIONS>): Promise<void> {
  const { db, site } = await openSiteFlag(settings, values.site);
  const rules = await siteRules(db, site.id);
  const rows = rules.map((r) => ({
    id: r.id,
    kind: r.kind,
    rule: describeRule(r),
    state: r.enabled ? r.state : `${r.state} (disabled)`,
  }));
  print(values.json ?? false, { alerts: rules.map((r) => toAlertRule(r)) }, () => table(rows, ["id", "kind", "rule", "state"]));
}

export async function createAlert(settings: Settings, { values }: Invocation<typeof ALERTS_CREATE_OPTIONS>): Promise<void> {
  if (!values.site) throw new CliError("--site: a site id is required", 2);
  if (values.below !== undefined && values.above !== undefined) throw new CliError("--below, --above: give one of them", 2);
  const k = kAnonymity(kAnonymitySetting(process.env.WREN_K_ANONYMITY));
  const webhookAllow = webhookAllowSetting();
  const condition = values.below !== undefined ? "below" : values.above !== undefined ? "above" : undefined;
  // Absent flags are absent fields, as in a JSON body.
  const input = present({
    site: values.site,
    kind: values["deployment-without-smoke"] ? "deployment_without_smoke" : "threshold",
    metric: values.metric ?? (values.goal !== undefined ? "goal" : undefined),
    goal_id: values.goal,
    condition,
    threshold: numberFlag(values.below ?? values.above),
    window_hours: numberFlag(values["window-hours"]),
    for_minutes: numberFlag(values["for-minutes"]),
    within_minutes: numberFlag(values["within-minutes"]),
    destinations: destinationsOf(values.url ?? [], values.format ?? []),
  });

  const parsed = (await createBodySchema()).safeParse(input);
  if (!parsed.success) {
    const { field, message } = describeIssue(parsed.error, input);
    throw new CliError(`${flagOf(field, input as Partial<RuleInput>)}: ${message}`, 2);
  }
  const { db } = await openSite(settings, values.site);
  const settingsForRules = { k, serverSecret: requireSecret(settings), webhookAllow };
  let created;
  try {
    created = await createRule(db, parsed.data, settingsForRules, Date.now());
  } catch (error) {
    throw refusal(error, parsed.data);
  }
  const { rule, secrets } = created;
  print(values.json ?? false, toAlertRule(rule, secrets), () =>
    [
      `Created alert rule ${rule.id} on ${rule.siteId}: ${describeRule(rule)}.`,
      ...rule.destinations.flatMap((d) => [
        `Destination ${d.id}: ${d.url} (${d.format === "slack" ? "slack: sent unsigned" : "standard: signed"})`,
        `  Secret (shown once, store it now): ${secrets.get(d.id)}`,
      ]),
    ].join("\n"),
  );
}
