/**
 * Response shapes, declared once with zod: handlers build them through these functions, and
 * the OpenAPI document is generated from the same schemas.
 */
import { z } from "zod";
import type { ApiKeyRow } from "../domain/apikeys";
import type { GoalRow } from "../domain/goals";
import type { SiteRow, SiteVerification } from "../domain/sites";
import { snippetFor } from "../domain/snippet";
import { maskedUrl, ruleSettings, type AlertRule, type Notification } from "../domain/alert-rules";
import { ALERT_CONDITIONS, ALERT_KINDS, ALERT_METRICS, ALERT_STATES, DEPLOYMENT_SOURCES, DESTINATION_FORMATS, GOAL_KINDS, OUTBOX_STATUSES } from "../lib/schema";
import { storedFigure } from "../reports/figures";
import { figureSchema } from "../reports/schemas";
import { SCOPES } from "../lib/keys";

const iso = (ms: number) => new Date(ms).toISOString();
const timestamp = z.string().meta({ format: "date-time", example: "2026-11-21T12:00:00.000Z" });

export const siteResource = z
  .object({
    id: z.string().meta({ example: "site_k3J9x0aQ2mZbT1vE" }),
    name: z.string(),
    domain: z.string().meta({ description: "IDNA-normalised, lower-cased hostname the snippet is bound to." }),
    allowlist: z.array(z.string()).meta({ description: "Hostnames whose pages may send beacons." }),
    snippet: z.string().meta({ description: "The embeddable tag; works only on the allowlisted hostnames." }),
    timezone: z.string().meta({ description: "IANA time zone of the site's report days and hours." }),
    s2s_token: z
      .string()
      .optional()
      .meta({ description: "The per-site token for POST /s2s. Returned on create, re-post and rotation only." }),
    created_at: timestamp,
  })
  .meta({ id: "Site" });

export function toSite(site: SiteRow, baseUrl: string, s2sToken?: string): z.infer<typeof siteResource> {
  return {
    id: site.id,
    name: site.name,
    domain: site.domain,
    allowlist: site.allowlist,
    snippet: snippetFor(baseUrl, site.id),
    timezone: site.timezone,
    ...(s2sToken ? { s2s_token: s2sToken } : {}),
    created_at: iso(site.createdAt),
  };
}

export const goalResource = z
  .object({
    id: z.string().meta({ example: "goal_q8Yt2LmN0pXs4RbW" }),
    site: z.string(),
    name: z.string(),
    kind: z.enum(GOAL_KINDS),
    match: z.string().meta({
      description:
        "Path pattern (page, time, scroll, not-found; * is a wildcard), event name (event), extensions separated by spaces or * (download), * (outbound).",
    }),
    threshold: z.number().int().meta({ description: "Seconds (time) or scroll depth percent (scroll); 0 otherwise." }),
    purpose: z.string().nullable(),
    revenue: z
      .object({ currency: z.string().meta({ example: "EUR" }) })
      .nullable()
      .meta({ description: "A revenue goal's currency (ISO 4217); null for a plain goal." }),
    created_at: timestamp,
  })
  .meta({ id: "Goal" });

export function toGoal(goal: GoalRow): z.infer<typeof goalResource> {
  return {
    id: goal.id,
    site: goal.siteId,
    name: goal.name,
    kind: goal.kind,
    match: goal.match,
    threshold: goal.threshold,
    purpose: goal.purpose,
    revenue: goal.currency ? { currency: goal.currency } : null,
    created_at: iso(goal.createdAt),
  };
}

const rateLimit = z.object({ requests: z.number().int(), per_seconds: z.number().int() });

export const keyResource = z
  .object({
    id: z.string().meta({ example: "key_Zt8u1VxQ3aLb6NcE" }),
    name: z.string(),
    prefix: z.string().meta({ description: "The key's first characters, to recognise it; the secret is never shown again." }),
    scopes: z.array(z.enum(SCOPES)),
    sites: z.array(z.string()).nullable().meta({
      description:
        'Site ids the key may act on (the sites an admin listed and the sites the key created); ["*"] for every site, as an admin granted; null on admin keys, which reach every site.',
    }),
    rate_limit: rateLimit.nullable().meta({ description: "Per-key limit; null uses the server default." }),
    created_at: timestamp,
    last_used_at: timestamp.nullable().meta({
      description:
        "The key's latest call. Calls are written in batches, so this may lag by up to 10 s; GET /api/v1/keys/{id}/usage writes them first and counts exactly.",
    }),
  })
  .meta({ id: "ApiKey" });

export const newKeyResource = keyResource
  .extend({ key: z.string().meta({ description: "The secret. Shown once; store it now." }) })
  .meta({ id: "NewApiKey" });

export function toKey(key: ApiKeyRow): z.infer<typeof keyResource> {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes as z.infer<typeof keyResource>["scopes"],
    sites: key.sites ?? (key.scopes.includes("admin") ? null : []),
    rate_limit: key.rateRequests && key.ratePerSeconds ? { requests: key.rateRequests, per_seconds: key.ratePerSeconds } : null,
    created_at: iso(key.createdAt),
    last_used_at: key.lastUsedAt ? iso(key.lastUsedAt) : null,
  };
}

export const usageResource = z
  .object({
    key_id: z.string(),
    usage: z.array(
      z.object({
        day: z.string().meta({ example: "2026-11-21" }),
        route: z.string().meta({ example: "GET /api/v1/pages" }),
        calls: z.number().int(),
      }),
    ),
  })
  .meta({ id: "KeyUsage" });

export const verificationResource = z
  .object({
    site: z.string(),
    verified: z.boolean().meta({ description: "True once a beacon from an allowlisted origin has arrived." }),
    first_seen: timestamp.nullable().meta({ description: "When the first beacon arrived. Nothing about later beacons is kept or shown." }),
    origin: z.string().nullable().meta({ description: "The origin of the first beacon." }),
    page: z.string().nullable().meta({ description: "The path of the page the first beacon came from (null for beacons stored before Wren kept it)." }),
  })
  .meta({ id: "SiteVerification" });

export function toVerification(siteId: string, state: SiteVerification): z.infer<typeof verificationResource> {
  return {
    site: siteId,
    verified: state.verified,
    first_seen: state.firstSeen === null ? null : iso(state.firstSeen),
    origin: state.origin,
    page: state.path,
  };
}

/**
 * An RFC 9457 problem as lib/problem.ts writes it, with every extension member some refusal
 * adds (api/auth.ts, domain/registration.ts, domain/alert-rules/): nothing else appears.
 */
export const problemResource = z
  .object({
    type: z.string().meta({ description: "`about:blank`: the status and title say what happened." }),
    title: z.string().meta({ description: "The status's reason phrase.", example: "Unprocessable Content" }),
    status: z.number().int().meta({ description: "The HTTP status, again." }),
    detail: z.string().meta({ description: "What is wrong and what to do, in words." }),
    field: z
      .string()
      .optional()
      .meta({ description: "The request field at fault (`events.3.goal_id`, `authorization`, `host`)." }),
    pointer: z
      .string()
      .optional()
      .meta({ description: "A JSON Pointer into the body, where `field` names only the key (`/destinations/1/url`)." }),
    required_scope: z
      .enum(SCOPES)
      .optional()
      .meta({ description: "403 for a missing scope: the scope the route needs (the first, where either of two will do)." }),
    site: z.string().optional().meta({ description: "409 on a registered domain, to an admin key: the site that holds it." }),
    registered_by: z
      .object({ id: z.string(), name: z.string(), revoked: z.boolean() })
      .nullable()
      .optional()
      .meta({ description: "409 on a registered domain, to an admin key: the key that registered it (null when unknown)." }),
  })
  .meta({ id: "Problem" });

export const acceptedEventsResource = z
  .object({
    accepted: z.number().int().meta({ description: "Events stored by this request." }),
    duplicates: z.number().int().meta({ description: "Events whose id was already stored (counted once)." }),
    attached: z.number().int().meta({ description: "Events stored by this request on a session seen in the last 24 hours." }),
    events: z
      .array(
        z.object({
          goal_id: z.string(),
          id: z.string().optional().meta({ description: "The event's id, when it was sent one." }),
          status: z.enum(["stored", "duplicate"]).meta({ description: "stored: new; duplicate: its id was already stored, nothing was written." }),
          session: z
            .enum(["attached", "unattached"])
            .nullable()
            .meta({ description: "Whether it was attached to a session seen in the last 24 hours; null for a duplicate." }),
        }),
      )
      .meta({ description: "One result per event, in the order sent." }),
  })
  .meta({ id: "AcceptedEvents" });

export const smokeConversionResource = z
  .object({
    id: z.string().nullable().meta({ description: "The conversion's `id` as its caller sent it (null when it sent none)." }),
    goal: z.string().meta({ description: "The smoke-test goal's id." }),
    at: timestamp,
    attached: z.boolean().meta({ description: "Whether it was attached to a session seen in the last 24 hours." }),
  })
  .meta({ id: "SmokeConversion" });

export const deploymentResource = z
  .object({
    id: z.string().meta({ example: "dep_Q2mZbT1vEk3J9x0a" }),
    site: z.string(),
    version: z.string().meta({ description: "Commit SHA, tag or build number.", example: "3f9c2ab" }),
    environment: z.string().meta({ example: "production" }),
    external_id: z.string().meta({ description: "Idempotency key, unique per site." }),
    description: z.string().nullable(),
    url: z.string().nullable(),
    deployed_at: timestamp,
    source: z.enum(DEPLOYMENT_SOURCES).meta({ description: "api: POST /api/v1/deployments; github: a GitHub deployment_status; webhook: a Standard Webhooks delivery." }),
    created_at: timestamp,
    smoke: z.array(smokeConversionResource).meta({
      description:
        "Smoke-test conversions beside this marker, oldest first (at most 100): those whose id is this marker's id, external_id or version, else those stamped from its deployed_at until the next marker. Exact, at once: operator data.",
    }),
  })
  .meta({ id: "Deployment" });

export const deploymentHookResource = z
  .object({
    url: z.string().meta({ description: "Where to send deliveries: the webhook's Payload URL.", example: "https://wren.example.com/hooks/deployments/site_k3J9x0aQ2mZbT1vE" }),
    secret: z.string().meta({
      description: "The hook's secret (`whsec_…`, Standard Webhooks). Shown once; GitHub takes it as it is. Calling again rotates it: the old one stops at once.",
    }),
  })
  .meta({ id: "DeploymentHook" });

export const ignoredDeliveryResource = z
  .object({
    recorded: z.literal(false),
    reason: z.string().meta({ description: "Why nothing was recorded (an event or state that makes no marker)." }),
  })
  .meta({ id: "IgnoredDelivery" });

const alertFigure = figureSchema.meta({ description: "A figure as reports show it: a suppressed one has a null value." });

/** A rule's settings: in the rule resource and, as they were, in each notification. */
const alertRuleSettings = z.object({
  id: z.string().meta({ example: "alr_Q2mZbT1vEk3J9x0a" }),
  site: z.string(),
  kind: z.enum(ALERT_KINDS),
  metric: z.enum(ALERT_METRICS).nullable(),
  goal_id: z.string().nullable(),
  condition: z.enum(ALERT_CONDITIONS).nullable(),
  threshold: z.number().int().nullable(),
  window_hours: z.number().int().nullable(),
  for_minutes: z.number().int(),
  within_minutes: z.number().int().nullable(),
});

export const alertRuleResource = alertRuleSettings
  .extend({
    enabled: z.boolean(),
    destinations: z.array(
      z.object({
        id: z.string(),
        url: z.string().meta({
          description:
            "The full URL only in the answer that made the destination (with `secret`); every other answer shows it masked: scheme, host, at most the first path segment, then `/…` (`https://hooks.slack.com/services/…`), never the rest of the path, the query or the fragment.",
        }),
        format: z.enum(DESTINATION_FORMATS),
        secret: z.string().optional().meta({ description: "The signing secret (`whsec_…`, Standard Webhooks), in the answer that made the destination only." }),
      }),
    ),
    state: z.object({
      status: z.enum(ALERT_STATES),
      since: timestamp,
      pending_since: timestamp.nullable().meta({ description: "Since when the condition has held, while for_minutes runs." }),
      figure: alertFigure.nullable().meta({ description: "The figure last evaluated; null before the first evaluation." }),
      evaluated_at: timestamp.nullable(),
      deployment_id: z.string().nullable().meta({ description: "deployment_without_smoke: the marker the state is about." }),
    }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "AlertRule" });

export function toAlertRule(rule: AlertRule, secrets?: Map<string, string>): z.infer<typeof alertRuleResource> {
  const figure = rule.lastQualifier === null ? null : storedFigure(rule.lastValue, rule.lastQualifier);
  return {
    ...ruleSettings(rule),
    enabled: rule.enabled,
    // A URL may be its own secret: in full, like the signing secret, only in the answer that made it.
    destinations: rule.destinations.map((d) =>
      secrets?.has(d.id) ? { id: d.id, url: d.url, format: d.format, secret: secrets.get(d.id)! } : { id: d.id, url: maskedUrl(d.url), format: d.format },
    ),
    state: {
      status: rule.state,
      since: iso(rule.stateSince),
      pending_since: rule.pendingSince === null ? null : iso(rule.pendingSince),
      figure,
      evaluated_at: rule.evaluatedAt === null ? null : iso(rule.evaluatedAt),
      deployment_id: rule.deploymentId,
    },
    created_at: iso(rule.createdAt),
    updated_at: iso(rule.updatedAt),
  };
}

const deliveryResource = z.object({
  webhook_id: z.string().meta({ description: "The message's webhook-id, the same on every attempt." }),
  destination: z.string(),
  type: z.string(),
  status: z.enum(OUTBOX_STATUSES),
  attempts: z.array(
    z.object({
      attempt: z.number().int(),
      at: timestamp,
      status: z.number().int().nullable().meta({ description: "The receiver's HTTP status; null when it gave none." }),
      error: z.string().nullable().meta({ description: "Why there was no answer (timeout, refused address)." }),
      duration_ms: z.number().int(),
    }),
  ),
  next_attempt_at: timestamp.nullable(),
  delivered_at: timestamp.nullable(),
});

export const alertHistoryResource = z
  .object({
    rule: z.string(),
    transitions: z.array(
      z.object({
        seq: z.number().int(),
        at: timestamp,
        from: z.enum(ALERT_STATES),
        to: z.enum(ALERT_STATES),
        figure: alertFigure,
        window: z.object({ start: timestamp, end: timestamp }),
        deployment_id: z.string().nullable(),
        deliveries: z.array(deliveryResource),
      }),
    ),
    tests: z.array(deliveryResource),
  })
  .meta({ id: "AlertHistory" });

/**
 * The body of an alert notification to a `standard` destination (alerts/payload.ts), for the
 * document's `webhooks`. Kept to the `Notification` interface by the check below: a field added
 * to one and not the other fails the typecheck.
 */
export const alertNotificationResource = z
  .object({
    type: z.enum(["alert.firing", "alert.resolved", "alert.test"]).meta({
      description: "`alert.firing`: the rule's condition began to hold; `alert.resolved`: it stopped; `alert.test`: sent by POST /api/v1/alerts/{id}/test.",
    }),
    timestamp: timestamp.meta({ description: "When the notification was made: the evaluation that saw the transition, or the test request." }),
    data: z.object({
      rule: alertRuleSettings.meta({ description: "The rule's settings when the notification was made." }),
      state: z
        .object({ from: z.enum(ALERT_STATES), to: z.enum(ALERT_STATES), at: timestamp })
        .nullable()
        .meta({ description: "The transition; null for alert.test." }),
      figure: alertFigure.meta({ description: "The figure the rule saw: a suppressed one has a null value, never a number." }),
      window: z.object({ start: timestamp, end: timestamp }).meta({ description: "The window the figure covers." }),
      deployment: z
        .object({ id: z.string(), version: z.string(), deployed_at: timestamp })
        .nullable()
        .meta({ description: "deployment_without_smoke: the marker without a smoke conversion; null otherwise." }),
      links: z.object({
        overview: z.string().meta({ description: "The Overview API for the site (and the marker)." }),
        dashboard: z.string(),
        history: z.string().meta({ description: "The rule's history." }),
      }),
    }),
  })
  .meta({ id: "AlertNotification" });

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const notificationMatches: Same<z.infer<typeof alertNotificationResource>, Notification> = true;
void notificationMatches;
