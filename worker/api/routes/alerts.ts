/**
 * Alert rules (worker/domain/alert-rules/): make, list, read, change and delete them, read a
 * rule's history of transitions and deliveries, and send it a test notification. Changing needs
 * `write:alerts`; reading takes `read:reports` or `write:alerts`. Every rule is on a site the
 * key may act on. Evaluation and delivery run in the alerts worker (worker/alerts/).
 */
import { z } from "zod";
import { auditActor, recordAudit } from "../../domain/audit";
import {
  ALERT_CONDITIONS,
  ALERT_KINDS,
  ALERT_METRICS,
  alertHistory,
  createRule,
  deleteRule,
  DESTINATION_FORMATS,
  MAX_DESTINATIONS,
  queueTestNotifications,
  requireRule,
  siteRules,
  updateRule,
  type AlertRule,
  type Settings,
} from "../../domain/alert-rules";
import { goalId, siteId } from "../../lib/ids";
import { kAnonymity } from "../../reports/privacy";
import type { ApiEnv } from "../env";
import { alertParams } from "../params";
import { route } from "../registry";
import { alertHistoryResource, alertRuleResource, toAlertRule } from "../resources";
import { now } from "../../lib/clock";

const destination = z.strictObject({
  url: z.string().max(2048).meta({ description: "https:// URL (plain http:// only for hosts WREN_WEBHOOK_ALLOW names); public addresses only unless allowed." }),
  format: z.enum(DESTINATION_FORMATS).default("standard").meta({ description: "`standard`: signed per Standard Webhooks. `slack`: a Slack incoming-webhook message, unsigned." }),
});

const threshold = z.number().int().min(0).max(1_000_000_000);
const windowHours = z.number().int().min(1).max(168);
const forMinutes = z.number().int().min(0).max(10_080);
const withinMinutes = z.number().int().min(1).max(1440);
const destinations = z.array(destination).min(1).max(MAX_DESTINATIONS);

const createBody = z
  .strictObject({
    site: siteId,
    kind: z.enum(ALERT_KINDS).default("threshold"),
    metric: z.enum(ALERT_METRICS).optional().meta({ description: "threshold rules: a goal's conversions, or the site's pageviews or visitors." }),
    goal_id: goalId.optional().meta({ description: "The goal, when metric is goal." }),
    condition: z.enum(ALERT_CONDITIONS).optional(),
    threshold: threshold.optional().meta({ description: "1 (fires when there are none at all) or at least k; any on a smoke-test goal." }),
    window_hours: windowHours.optional().meta({ description: "Trailing closed hours (default 24)." }),
    for_minutes: forMinutes.optional().meta({ description: "How long the condition must hold before the rule fires (default 0)." }),
    within_minutes: withinMinutes.optional().meta({ description: "deployment_without_smoke: how long a marker may wait for its smoke conversion (default 15)." }),
    enabled: z.boolean().default(true),
    destinations,
  })
  .meta({ id: "AlertRuleCreate" });

const patchBody = z
  .strictObject({
    enabled: z.boolean().optional(),
    condition: z.enum(ALERT_CONDITIONS).optional(),
    threshold: threshold.optional(),
    window_hours: windowHours.optional(),
    for_minutes: forMinutes.optional(),
    within_minutes: withinMinutes.optional(),
    destinations: destinations.optional().meta({ description: "Replaces every destination; the new ones get new secrets." }),
  })
  .meta({ id: "AlertRuleChange" });

function settings(env: ApiEnv): Settings {
  return { k: kAnonymity(env.WREN_K_ANONYMITY), serverSecret: env.WREN_SECRET, webhookAllow: env.WREN_WEBHOOK_ALLOW };
}

/** Asks the scheduler to send what was just queued; without one (tests), the next pass will. */
async function sendSoon(env: ApiEnv): Promise<void> {
  if (!env.ALERTS) return;
  await env.ALERTS.get(env.ALERTS.idFromName("alerts"))
    .sendSoon()
    .catch(() => undefined);
}

const notFound = { description: "No such rule on a site this key may act on." };
const withSecrets = (rule: AlertRule, secrets: Map<string, string>) => toAlertRule(rule, secrets);

export const alertRoutes = [
  route({
    operationId: "createAlertRule",
    method: "POST",
    path: "/api/v1/alerts",
    summary: "Make an alert rule; each destination's signing secret is in the answer, this once",
    tag: "Alerts",
    auth: "key",
    scope: "write:alerts",
    body: createBody,
    site: { from: "body", name: "site" },
    responses: {
      201: { description: "Made, with `destinations[i].secret` and the full `destinations[i].url`, this once.", schema: alertRuleResource },
      404: { description: "No such site (`field`: `site`)." },
    },
    async handle({ db, env, caller, body, reply }) {
      const { rule, secrets } = await createRule(db, body, settings(env), now());
      await recordAudit(db, { actor: auditActor(caller), action: "alert.create", siteId: body.site, target: rule.id, detail: { kind: body.kind } });
      return reply(201, withSecrets(rule, secrets));
    },
  }),
  route({
    operationId: "listAlertRules",
    method: "GET",
    path: "/api/v1/alerts",
    summary: "A site's alert rules with their state",
    tag: "Alerts",
    auth: "key",
    scope: "read:reports",
    orScope: "write:alerts",
    query: z.strictObject({ site: siteId.meta({ param: { description: "Site id" } }) }),
    site: { from: "query", name: "site" },
    responses: {
      200: { description: "The rules, oldest first.", schema: z.object({ alerts: z.array(alertRuleResource) }) },
      404: { description: "No such site (`field`: `site`)." },
    },
    async handle({ db, query, reply }) {
      const rules = await siteRules(db, query.site);
      return reply(200, { alerts: rules.map((rule) => toAlertRule(rule)) });
    },
  }),
  route({
    operationId: "getAlertRule",
    method: "GET",
    path: "/api/v1/alerts/:id",
    summary: "One alert rule with its state",
    tag: "Alerts",
    auth: "key",
    scope: "read:reports",
    orScope: "write:alerts",
    params: alertParams,
    responses: { 200: { description: "The rule.", schema: alertRuleResource }, 404: notFound },
    async handle({ db, caller, params, reply }) {
      return reply(200, toAlertRule(await requireRule(db, params.id, caller.mayActOn)));
    },
  }),
  route({
    operationId: "updateAlertRule",
    method: "PATCH",
    path: "/api/v1/alerts/:id",
    summary: "Change an alert rule (its state is kept; new destinations get new secrets and full URLs, shown this once)",
    tag: "Alerts",
    auth: "key",
    scope: "write:alerts",
    params: alertParams,
    body: patchBody,
    responses: { 200: { description: "The changed rule.", schema: alertRuleResource }, 404: notFound },
    async handle({ db, env, caller, params, body, reply }) {
      const { rule, secrets } = await updateRule(db, params.id, body, settings(env), caller.mayActOn, now());
      await recordAudit(db, { actor: auditActor(caller), action: "alert.update", siteId: rule.siteId, target: rule.id, detail: { fields: Object.keys(body) } });
      return reply(200, withSecrets(rule, secrets));
    },
  }),
  route({
    operationId: "deleteAlertRule",
    method: "DELETE",
    path: "/api/v1/alerts/:id",
    summary: "Delete an alert rule with its history and undelivered notifications",
    tag: "Alerts",
    auth: "key",
    scope: "write:alerts",
    params: alertParams,
    responses: { 204: { description: "Deleted." }, 404: notFound },
    async handle({ db, caller, params, reply }) {
      await deleteRule(db, params.id, caller.mayActOn);
      await recordAudit(db, { actor: auditActor(caller), action: "alert.delete", target: params.id });
      return reply(204);
    },
  }),
  route({
    operationId: "getAlertHistory",
    method: "GET",
    path: "/api/v1/alerts/:id/history",
    summary: "A rule's transitions, newest first, each with its deliveries and their attempts; and its test notifications",
    tag: "Alerts",
    auth: "key",
    scope: "read:reports",
    orScope: "write:alerts",
    params: alertParams,
    responses: { 200: { description: "The history (the latest 100 transitions and 20 tests).", schema: alertHistoryResource }, 404: notFound },
    async handle({ db, caller, params, reply }) {
      return reply(200, await alertHistory(db, params.id, caller.mayActOn));
    },
  }),
  route({
    operationId: "testAlertRule",
    method: "POST",
    path: "/api/v1/alerts/:id/test",
    summary: "Send an alert.test to each of the rule's destinations, through the outbox like any notification",
    tag: "Alerts",
    auth: "key",
    scope: "write:alerts",
    params: alertParams,
    responses: {
      202: {
        description: "Queued: the webhook-id of each destination's message (see the rule's history for the outcome).",
        schema: z.object({ queued: z.array(z.object({ destination: z.string(), webhook_id: z.string() })) }),
      },
      404: notFound,
    },
    async handle({ db, env, caller, params, baseUrl, reply, execution }) {
      const queued = await queueTestNotifications(db, params.id, caller.mayActOn, now(), baseUrl);
      execution.waitUntil(sendSoon(env));
      return reply(202, { queued });
    },
  }),
];
