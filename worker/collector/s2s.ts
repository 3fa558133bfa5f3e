/**
 * Server-to-server conversions: `POST /s2s` with `X-Service-Token`. The token's MAC is verified
 * in the isolate before anything else (token.ts); its version is confirmed current in the
 * write transaction. `POST /api/v1/events` comes here too: the api worker checks the API key,
 * scope and site, and sends the events on with the site's token.
 *
 * Body: one conversion `{goal_id, session?, value?, id?, timestamp?}` or `{events: [...]}`
 * (≤ 500). Every check runs before the write, and a request is stored whole or not at all.
 */
import { randomToken } from "../lib/crypto";
import { jsonResponse } from "../lib/json-response";
import { HttpProblem } from "../lib/problem";
import { hasMediaType, parseJson, readBoundedText } from "../lib/body";
import { SERVICE_TOKEN_HEADER } from "../lib/tokens";
import type { CollectorWorkerEnv } from "./env";
import { eventKeyOf } from "./event-key";
import type { GoalRule } from "./goals";
import { originAllowed, requestOrigin } from "./origin";
import { keptProps, noteDrops } from "./props";
import { emptyRequest, type ConversionRow } from "./rows";
import { describeIssue } from "../lib/issues";
import { conversion, conversionBatch, S2S_BODY_LIMIT, type Conversion } from "./schemas";
import { sessionCandidates, sessionKeys } from "./sessions";
import { siteConfig, type SiteConfig } from "./site-config";
import { store } from "./store";
import { noteCurrentVersion, verifyServiceToken, type VerifiedToken } from "./token";
import { outsideWindow, parseTimestamp } from "./window";
import { now as serviceNow } from "../lib/clock";
import { amountCents } from "../lib/revenue";

/** `POST /s2s`. */
export async function handleS2s(request: Request, env: CollectorWorkerEnv, ctx: ExecutionContext): Promise<Response> {
  const token = await verifyServiceToken(env, request.headers.get(SERVICE_TOKEN_HEADER));
  if (!token) throw unauthorized("X-Service-Token is missing or is not a valid token of this server.");
  return ingestConversions(env, ctx, token.siteId, request, token);
}

function unauthorized(detail: string): HttpProblem {
  return new HttpProblem(401, detail, { field: "X-Service-Token" });
}

interface Located {
  event: Conversion;
  /** Field prefix for problems: "" for a single conversion, "events.N." in a batch. */
  at: string;
}

function readConversions(input: unknown): Located[] {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new HttpProblem(422, "body: must be a JSON object", { field: "body" });
  }
  const body = input as Record<string, unknown>;
  if ("events" in body) {
    const parsed = conversionBatch.safeParse(body);
    if (!parsed.success) throw invalid(parsed.error, body);
    return parsed.data.events.map((event, i) => ({ event, at: `events.${i}.` }));
  }
  const parsed = conversion.safeParse(body);
  if (!parsed.success) throw invalid(parsed.error, body);
  return [{ event: parsed.data, at: "" }];
}

function invalid(error: Parameters<typeof describeIssue>[0], input: unknown): HttpProblem {
  const { field, message } = describeIssue(error, input);
  return new HttpProblem(422, `${field}: ${message}`, { field });
}

function eventTime(item: Located, now: number): number {
  if (item.event.timestamp === undefined) return now;
  const field = `${item.at}timestamp`;
  const ts = parseTimestamp(item.event.timestamp);
  if (ts === null)
    throw new HttpProblem(422, `${field}: must be an RFC 3339 date-time or milliseconds since the epoch`, { field });
  const why = outsideWindow(ts, now);
  if (why) throw new HttpProblem(422, `${field}: ${why}`, { field });
  return ts;
}

/**
 * Every goal must be the site's; a goal made seconds ago is found by one fresh read. Returns
 * the site's goals by id, as last read.
 */
async function requireGoals(env: CollectorWorkerEnv, site: SiteConfig, items: Located[]): Promise<Map<string, GoalRule>> {
  const missing = (config: SiteConfig) => items.find((item) => !config.goals.some((g) => g.id === item.event.goal_id));
  if (!missing(site)) return new Map(site.goals.map((g) => [g.id, g]));
  const fresh = (await siteConfig(env, site.id, { refresh: true })) ?? site;
  const item = missing(fresh);
  if (item) {
    const field = `${item.at}goal_id`;
    throw new HttpProblem(422, `${field}: ${item.event.goal_id} is not a goal of this site`, { field });
  }
  return new Map(fresh.goals.map((g) => [g.id, g]));
}

/**
 * A conversion's revenue must be in its goal's currency: another one, or any on a goal without
 * a currency, is a 422 naming `revenue.currency` (no conversion rates; docs/collector.md). A
 * goal's currency set a moment ago is found by one fresh read.
 */
async function requireRevenueCurrencies(
  env: CollectorWorkerEnv,
  site: SiteConfig,
  items: Located[],
  goals: Map<string, GoalRule>,
): Promise<Map<string, GoalRule>> {
  const wrong = (byId: Map<string, GoalRule>) =>
    items.find((item) => item.event.revenue && byId.get(item.event.goal_id)?.currency !== item.event.revenue.currency);
  if (!wrong(goals)) return goals;
  const fresh = (await siteConfig(env, site.id, { refresh: true })) ?? site;
  const byId = new Map(fresh.goals.map((g) => [g.id, g]));
  const item = wrong(byId);
  if (item) {
    const field = `${item.at}revenue.currency`;
    const goal = byId.get(item.event.goal_id);
    const why = goal?.currency
      ? `must be ${goal.currency}, the goal's currency (amounts are not converted)`
      : "the goal is not a revenue goal: give it a currency first (PATCH /api/v1/sites/{site}/goals/{goal})";
    throw new HttpProblem(422, `${field}: ${why}`, { field });
  }
  return byId;
}

async function ingestConversions(
  env: CollectorWorkerEnv,
  ctx: ExecutionContext,
  siteId: string,
  request: Request,
  token: VerifiedToken,
): Promise<Response> {
  if (!hasMediaType(request, "application/json")) {
    throw new HttpProblem(415, "Send the body as application/json.", { field: "content-type" });
  }
  const items = readConversions(parseJson(await readBoundedText(request, S2S_BODY_LIMIT)));
  const now = serviceNow();
  const times = items.map((item) => eventTime(item, now));

  const site = await siteConfig(env, siteId);
  if (!site) throw unauthorized("The token's site no longer exists.");
  noteCurrentVersion(env, ctx, { siteId: site.id, version: site.tokenVersion });
  if (request.headers.has("origin")) {
    const origin = requestOrigin(request.headers);
    if (!originAllowed(origin, site.allowlist)) {
      throw new HttpProblem(403, `Origin ${origin?.hostname ?? "null"} is not on this site's allowlist.`, { field: "origin" });
    }
  }
  const goals = await requireRevenueCurrencies(env, site, items, await requireGoals(env, site, items));

  const keys = items.some((item) => item.event.session) ? await sessionKeys(env, now) : null;
  const rows = emptyRequest();
  rows.tokenSites.push(site.id);
  const submitted: ConversionRow[] = [];
  for (const [i, { event }] of items.entries()) {
    // Names off the allowlist are dropped and counted, as on beacons: a typo must not lose a conversion.
    const { json: props, drops } = keptProps(event.props, site.props);
    noteDrops(rows.propDrops, site.id, now, drops, token.version);
    const row: ConversionRow = {
      siteId: site.id,
      goalId: event.goal_id,
      value: event.value ?? null,
      revenue: event.revenue ? { cents: amountCents(event.revenue.amount)!, currency: event.revenue.currency } : null,
      source: "s2s",
      // Every row gets a key, so the writer can say which were new: the caller's id (hashed), or a fresh one.
      key: event.id !== undefined ? await eventKeyOf(env.WREN_SECRET, site.id, event.id) : `auto:${randomToken(12)}`,
      ts: times[i]!,
      sessionId: null,
      lookup: event.session && keys ? await sessionCandidates(keys, site.id, event.session) : null,
      tokenVersion: token.version,
      props,
      // A smoke test: listed beside its deployment marker with the caller's id (domain/deployments.ts).
      ...(goals.get(event.goal_id)?.smoke ? { smoke: { id: event.id ?? null } } : {}),
    };
    submitted.push(row);
    rows.conversions.push(row);
  }

  const outcome = await store(env, ctx, rows);
  const current = outcome.tokenVersions[site.id];
  if (current === undefined) throw unauthorized("The token's site no longer exists.");
  noteCurrentVersion(env, ctx, { siteId: site.id, version: current });
  // Nothing was written: each row was conditional on this version being current.
  if (current !== token.version) throw unauthorized("This token has been rotated; use the site's current token.");

  const stored = new Set(outcome.storedKeys);
  const attached = new Set(outcome.attachedKeys);
  const claimed = new Set<string>();
  const results = items.map(({ event }, i) => {
    const key = submitted[i]!.key!;
    const isNew = stored.has(key) && !claimed.has(key);
    claimed.add(key);
    return {
      goal_id: event.goal_id,
      ...(event.id !== undefined ? { id: event.id } : {}),
      status: isNew ? "stored" : "duplicate",
      session: isNew ? (attached.has(key) ? "attached" : "unattached") : null,
    };
  });
  const accepted = results.filter((r) => r.status === "stored").length;
  return jsonResponse(
    {
      accepted,
      duplicates: results.length - accepted,
      attached: results.filter((r) => r.session === "attached").length,
      events: results,
    },
    { status: 202, headers: { "cache-control": "no-store" } },
  );
}
