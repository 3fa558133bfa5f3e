/**
 * Request bodies, declared once with zod: the API validates with them, the CLI validates its
 * flags with them, and the OpenAPI document is generated from them. Objects are strict, so an
 * unknown field is an error that names it.
 */
import { z } from "zod";
import { currency } from "../lib/revenue";
import { GOAL_KINDS } from "../lib/schema";
import { siteId } from "../lib/ids";
import { MAX_PATTERN_LENGTH, MAX_PATTERN_STARS, starCount } from "../lib/glob";
import { DOWNLOAD_MATCH_PATTERN } from "../lib/reserved-events";
import { EVERY_SITE, SCOPES } from "../lib/keys";
import { canonicalTimeZone } from "../reports/timezone";
import { normalizeHostname } from "./hostname";
import { now } from "../lib/clock";

const name = z.string().trim().min(1).max(100);

export const domainField = z
  .string()
  .max(300)
  .transform((value, ctx) => {
    const result = normalizeHostname(value);
    if (!result.ok) {
      ctx.addIssue({ code: "custom", message: `domain ${result.reason}` });
      return z.NEVER;
    }
    return result.hostname;
  });

/** An IANA time zone; reports cut days in the site's zone. Stored in its canonical spelling. */
export const timezoneField = z
  .string()
  .max(64)
  .transform((value, ctx) => {
    const zone = canonicalTimeZone(value);
    if (!zone) {
      ctx.addIssue({ code: "custom", message: "must be an IANA time zone such as Europe/Berlin or UTC" });
      return z.NEVER;
    }
    return zone;
  })
  .meta({ description: "IANA time zone the site's reports use for days and hours (default UTC).", example: "Europe/Berlin" });

export const siteCreateBody = z.strictObject({ name, domain: domainField, timezone: timezoneField.optional() });
export const sitePatchBody = z.strictObject({ name: name.optional(), timezone: timezoneField.optional() });

export const keyCreateBody = z.strictObject({
  name: name.default("api key"),
  scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length),
  // Omitted or null: the key acts only on the sites it creates. "*" (or ["*"]): every site.
  sites: z
    .union([z.literal(EVERY_SITE).transform(() => [EVERY_SITE]), z.array(z.union([siteId, z.literal(EVERY_SITE)])).max(1000)])
    .nullable()
    .optional()
    .refine(
      (sites) => !sites || sites.length <= 1 || !sites.includes(EVERY_SITE),
      '"*" (every site) stands alone, without site ids',
    ),
  rate_limit: z
    .strictObject({
      requests: z.number().int().min(1).max(1_000_000),
      per_seconds: z.number().int().min(1).max(86_400),
    })
    .optional(),
});

// Matching is linear whatever the pattern (lib/glob.ts); the bounds keep each match cheap too.
const pathPattern = z
  .string()
  .min(1)
  .max(MAX_PATTERN_LENGTH)
  .regex(/^\/[^\s?#]*$/, "must be a path pattern starting with / (use * as a wildcard)");

/** The goals on the tracker's own events are created in one step: `match` defaults to any. */
const DEFAULT_MATCH: Partial<Record<(typeof GOAL_KINDS)[number], string>> = { outbound: "*", download: "*", "not-found": "/*" };
/** A download goal's extensions as written (`.PDF, zip`) in their one stored form (`pdf zip`). */
const extensions = (match: string) =>
  match
    .toLowerCase()
    .split(/[\s,]+/)
    .map((e) => e.replace(/^\./, ""))
    .filter(Boolean)
    .join(" ");

/** A revenue goal's settings: its currency (ISO 4217). Conversions carry amounts in it only. */
const goalRevenue = z
  .strictObject({ currency })
  .meta({ description: "Makes the goal a revenue goal: conversions may carry `revenue: {amount, currency}` in this currency only." });

export const goalCreateBody = z
  .strictObject({
    name: name.optional(),
    kind: z.enum(GOAL_KINDS),
    match: z
      .string()
      .min(1)
      .max(MAX_PATTERN_LENGTH)
      .optional()
      .meta({
        description:
          "A path pattern (page, time, scroll, not-found; * is a wildcard), an event name (event), extensions separated by spaces (download: `pdf zip`), or *. Needed for page, event, time and scroll; outbound, download and not-found count all without it.",
      }),
    threshold: z.number().int().min(0).max(86_400).optional(),
    purpose: z.string().trim().min(1).max(100).optional(),
    revenue: goalRevenue.optional(),
  })
  .transform((goal) => ({
    ...goal,
    match: goal.match === undefined ? DEFAULT_MATCH[goal.kind] : goal.kind === "download" ? extensions(goal.match) : goal.match,
  }))
  .superRefine((goal, ctx) => {
    if (goal.match === undefined) {
      ctx.addIssue({ code: "custom", path: ["match"], message: `a ${goal.kind} goal needs match` });
    } else if (goal.kind === "outbound") {
      if (goal.match !== "*") ctx.addIssue({ code: "custom", path: ["match"], message: "an outbound goal counts every outbound link: * (or leave it out)" });
    } else if (goal.kind === "download") {
      if (!DOWNLOAD_MATCH_PATTERN.test(goal.match)) {
        ctx.addIssue({ code: "custom", path: ["match"], message: "must be file extensions separated by spaces (pdf zip), or * for any download" });
      }
    } else if (goal.kind === "event") {
      if (!/^[\p{L}\p{N} _.:/-]{1,100}$/u.test(goal.match)) {
        ctx.addIssue({ code: "custom", path: ["match"], message: "must be an event name (letters, digits, space, _ . : / -)" });
      }
    } else if (!pathPattern.safeParse(goal.match).success) {
      ctx.addIssue({ code: "custom", path: ["match"], message: "must be a path pattern starting with / (use * as a wildcard)" });
    } else if (starCount(goal.match) > MAX_PATTERN_STARS) {
      ctx.addIssue({ code: "custom", path: ["match"], message: `may have at most ${MAX_PATTERN_STARS} * wildcards` });
    }
    if (goal.kind === "time" && !(goal.threshold && goal.threshold >= 1)) {
      ctx.addIssue({
        code: "custom",
        path: ["threshold"],
        message: "a time goal needs threshold: seconds on the page (1–86400)",
      });
    }
    if (goal.kind === "scroll" && !(goal.threshold && goal.threshold >= 1 && goal.threshold <= 100)) {
      ctx.addIssue({ code: "custom", path: ["threshold"], message: "a scroll goal needs threshold: depth percent (1–100)" });
    }
    if (goal.kind !== "time" && goal.kind !== "scroll" && goal.threshold) {
      ctx.addIssue({ code: "custom", path: ["threshold"], message: `a ${goal.kind} goal takes no threshold` });
    }
  })
  .transform(({ revenue, ...goal }) => ({
    ...goal,
    match: goal.match!,
    name: goal.name ?? `${goal.kind}: ${goal.match}`,
    threshold: goal.threshold ?? 0,
    purpose: goal.purpose ?? null,
    currency: revenue?.currency ?? null,
  }));

/** What of a goal may change: its labels. What it counts (kind, match, threshold) is its history's meaning. */
export const goalUpdateBody = z
  .strictObject({
    name: name.optional(),
    purpose: z.string().trim().min(1).max(100).nullable().optional(),
    revenue: goalRevenue.optional(),
  })
  .refine((body) => body.name !== undefined || body.purpose !== undefined || body.revenue !== undefined, {
    message: "give name, purpose or revenue",
    path: ["name"],
  });

/** How far ahead of now a deployed_at may be (clock skew), and how far back. */
export const DEPLOYED_AT_SKEW_MS = 5 * 60 * 1000;
export const DEPLOYED_AT_MAX_AGE_MS = 24 * 3600 * 1000;

/** Why a deployment time is refused at `now`, or null when it is within the window. */
export function deployedAtProblem(ms: number, now: number): string | null {
  if (!Number.isFinite(ms)) return "must be an ISO 8601 date-time";
  if (ms > now + DEPLOYED_AT_SKEW_MS) return "is in the future (at most 5 minutes of clock skew are allowed)";
  if (ms < now - DEPLOYED_AT_MAX_AGE_MS) return "is more than 24 hours ago";
  return null;
}

/** Printable text: no control or format characters (a marker's fields are shown as they are). */
const printable = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+$/u, `must be printable text (1–${max} characters)`);

/** True for an absolute http:// or https:// URL without credentials. */
function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && !url.username && !url.password;
  } catch {
    return false;
  }
}

const deploymentFields = {
  version: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[\p{L}\p{N}\p{P}\p{S}]+$/u, "must be a commit SHA, tag or build number (1–128 printable characters, no spaces)")
    .meta({ description: "What was deployed: a commit SHA, tag or build number.", example: "3f9c2ab" }),
  environment: printable(64)
    .optional()
    .meta({ description: "Where it was deployed (default `production`).", example: "production" }),
  external_id: printable(200).optional().meta({
    description:
      "Idempotency key, unique per site: the same one again returns the same marker unchanged. Default `version:environment` (the webhook: `webhook:<webhook-id>`).",
  }),
  description: z
    .string()
    .max(1000)
    .regex(/^(?:[^\p{Cc}\p{Cf}]|[\t\n\r])*$/u, "must be printable text (at most 1000 characters)")
    .nullish(),
  url: z.string().max(2048).refine(isWebUrl, "must be an http:// or https:// URL (without credentials)").nullish().meta({
    description: "A link to the release (build log, changelog, environment).",
  }),
  deployed_at: z.iso
    .datetime({ offset: true })
    .superRefine((value, ctx) => {
      const why = deployedAtProblem(Date.parse(value), now());
      if (why) ctx.addIssue({ code: "custom", message: why });
    })
    .optional()
    .meta({ description: "When it was deployed (default now): not in the future (5 minutes of skew allowed), at most 24 hours ago." }),
};

export const deploymentCreateBody = z.strictObject({ site: siteId, ...deploymentFields });
/** The body of a Standard Webhooks delivery to the deployment hook: the same fields, the site in the URL. */
export const deploymentHookBody = z.strictObject(deploymentFields);

export type DeploymentFields = z.output<typeof deploymentHookBody>;
export type SiteCreateBody = z.infer<typeof siteCreateBody>;
export type KeyCreateBody = z.infer<typeof keyCreateBody>;
export type GoalCreateBody = z.infer<typeof goalCreateBody>;
