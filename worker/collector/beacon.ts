/**
 * `POST /e`: beacons from the tracker. In order, before anything is written: known crawlers
 * are dropped, the body is bounded and validated, and the page's origin must be on the
 * site's allowlist. Then the session id is hashed, goals are matched, and the rows are
 * stored; 202 is sent only after they are committed.
 */
import { jsonResponse } from "../lib/json-response";
import { HttpProblem } from "../lib/problem";
import { hasMediaType, parseJsonText, readBoundedText, refuseUnstorableText } from "../lib/body";
import { isCrawler } from "./crawlers";
import type { CollectorWorkerEnv } from "./env";
import { countsOncePerSession, goalCompleted } from "./goals";
import { canonicalHostname, corsHeaders, originAllowed, requestOrigin, type RequestOrigin } from "./origin";
import { keptProps, noteDrops } from "./props";
import { NOT_FOUND_EVENT, NOT_FOUND_PROP } from "../lib/reserved-events";
import { emptyRequest, type BeaconSeen, type IngestRequest } from "./rows";
import { describeIssue } from "../lib/issues";
import { pageviewDimensions, visitorDimensions, type VisitorDimensions } from "./dimensions/visitor";
import { BEACON_BODY_LIMIT, beaconBody, type BeaconBody } from "./schemas";
import { hashSession, sessionKeys } from "./sessions";
import { siteConfig, type SiteConfig } from "./site-config";
import { store } from "./store";
import { noteCurrentVersion } from "./token";
import { now as serviceNow } from "../lib/clock";
import { amountCents } from "../lib/revenue";
import type { RevenueDropReason } from "../lib/schema/revenue";
import type { GoalRule } from "./goals";

export async function handleBeacon(request: Request, env: CollectorWorkerEnv, ctx: ExecutionContext): Promise<Response> {
  if (isCrawler(request.headers.get("user-agent"))) {
    throw new HttpProblem(403, "Requests from known crawlers and automated clients are not recorded.", { field: "user-agent" });
  }
  if (!hasMediaType(request, "text/plain", "application/json")) {
    throw new HttpProblem(415, "Send the beacon as text/plain or application/json.", { field: "content-type" });
  }
  const input = parseJsonText(await readBoundedText(request, BEACON_BODY_LIMIT));
  const parsed = beaconBody.safeParse(input);
  if (!parsed.success) {
    const { field, message } = describeIssue(parsed.error, input);
    throw new HttpProblem(422, `${field}: ${message}`, { field });
  }
  // The schema cleaned the text a URL can carry; what is still unstorable is in a field it refuses.
  refuseUnstorableText(parsed.data);
  const beacon = parsed.data;
  const origin = requestOrigin(request.headers);
  const site = await siteConfig(env, beacon.site);
  if (!site) throw new HttpProblem(403, `site: ${beacon.site} is not a site of this collector.`, { field: "site" });
  if (!originAllowed(origin, site.allowlist)) {
    const from = origin ? origin.hostname : "a request without Origin or Referer";
    throw new HttpProblem(403, `Beacons for this site are accepted only from its own domain, not from ${from}.`, { field: "origin" });
  }

  noteCurrentVersion(env, ctx, { siteId: site.id, version: site.tokenVersion });
  const now = serviceNow();
  const sessionId = await hashSession((await sessionKeys(env, now)).current, site.id, beacon.session);
  // Derived only for pageviews, and once per beacon; the headers and address go no further.
  const visitor = beacon.events.some((e) => e.type === "pageview") ? visitorDimensions(request, env.WREN_CLIENT_IP_HEADER) : null;
  const rows = beaconRows(beacon, site, sessionId, origin!, now, visitor);
  await store(env, ctx, rows);
  noteBeaconsRecorded(rows.beacons);
  return jsonResponse({ accepted: beacon.events.length }, { status: 202, headers: { ...corsHeaders(origin, true), "cache-control": "no-store" } });
}

/** Only the referring site's hostname is kept, and none when the visitor came from the site itself. */
function referrerHost(referrer: string | undefined, origin: RequestOrigin): string | null {
  if (!referrer) return null;
  try {
    const url = new URL(referrer);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    const host = canonicalHostname(url.hostname);
    return host === origin.hostname ? null : host;
  } catch {
    return null;
  }
}

/** A `404` event's props with its own path added (NOT_FOUND_PROP), whatever the allowlist: the collector's, not the page's. */
function withMissingPath(props: string | null, path: string): string {
  return JSON.stringify({ ...(props ? (JSON.parse(props) as Record<string, string>) : {}), [NOT_FOUND_PROP]: path });
}

export function beaconRows(
  beacon: BeaconBody,
  site: SiteConfig,
  sessionId: string,
  origin: RequestOrigin,
  now: number,
  visitor: VisitorDimensions | null,
): IngestRequest {
  const rows = emptyRequest();
  let entryPath: string | null = null;
  for (const event of beacon.events) {
    // Pageviews and events carry props; the drops are counted once per event, its conversions keep the same props.
    const { json: sent, drops } = keptProps(event.type === "pageview" || event.type === "event" ? event.props : undefined, site.props);
    const props = event.type === "event" && event.name === NOT_FOUND_EVENT ? withMissingPath(sent, event.path) : sent;
    noteDrops(rows.propDrops, site.id, now, drops);
    const common = { siteId: site.id, sessionId, path: event.path, ts: now, dimensions: null, props };
    switch (event.type) {
      case "pageview": {
        entryPath ??= event.path;
        const referrer = referrerHost(event.referrer, origin);
        const dimensions = pageviewDimensions(event, referrer, visitor!);
        rows.events.push({ ...common, kind: "pageview", name: null, referrer, value: null, seconds: null, scrollDepth: null, dimensions });
        break;
      }
      case "event":
        rows.events.push({ ...common, kind: "event", name: event.name, referrer: null, value: event.value ?? null, seconds: null, scrollDepth: null });
        break;
      case "engagement":
        rows.events.push({ ...common, kind: "engagement", name: null, referrer: null, value: null, seconds: event.seconds, scrollDepth: event.scroll });
        break;
      case "vital":
        rows.vitals.push({ siteId: site.id, sessionId, path: event.path, ts: now, metric: event.metric, value: event.value });
        break;
    }
    for (const goal of site.goals) {
      if (!goalCompleted(goal, event)) continue;
      const once = countsOncePerSession(goal);
      const kept = event.type === "event" ? beaconRevenue(event.revenue, goal) : null;
      if (kept && "drop" in kept) (rows.revenueDrops ??= []).push({ siteId: site.id, ts: now, reason: kept.drop });
      rows.conversions.push({
        siteId: site.id,
        goalId: goal.id,
        value: event.type === "event" ? (event.value ?? null) : null,
        revenue: kept && "cents" in kept ? kept : null,
        source: "beacon",
        key: once ? `goal:${goal.id}:${sessionId}` : null,
        ts: now,
        sessionId,
        lookup: null,
        tokenVersion: null,
        props,
      });
    }
  }
  rows.sessions.push({ id: sessionId, siteId: site.id, ts: now, entryPath });
  if (!beaconRecorded.has(beaconKey(site.id, origin.origin))) {
    rows.beacons.push({ siteId: site.id, origin: origin.origin, ts: now, path: beacon.events[0]!.path });
  }
  return rows;
}

/**
 * A beacon's revenue for a goal, or why it is dropped: the conversion counts either way (a
 * beacon is the visitor's one chance to be counted, and nobody reads its answer). A bad amount
 * is `revenue_amount`; another currency than the goal's, or any on a goal without one,
 * `revenue_currency` (no conversion rates: docs/collector.md, Revenue). Nothing sent, nothing dropped.
 */
export function beaconRevenue(
  sent: unknown,
  goal: GoalRule,
): { cents: number; currency: string } | { drop: RevenueDropReason } | null {
  if (sent === undefined) return null;
  if (sent === null || typeof sent !== "object" || Array.isArray(sent)) return { drop: "revenue_amount" };
  const { amount, currency } = sent as Record<string, unknown>;
  if (!goal.currency || currency !== goal.currency) return { drop: "revenue_currency" };
  const cents = amountCents(amount);
  return cents === null ? { drop: "revenue_amount" } : { cents, currency: goal.currency };
}

/**
 * site_beacons (what the wizard's verification shows) holds the first beacon from each origin
 * and nothing later: the database keeps the first row (rows.ts), and an isolate stops offering
 * one once its row is committed, so a busy site writes nothing more for it. (Noted only after
 * the commit: a first beacon that failed to store is offered again with the next.)
 */
const beaconRecorded = new Set<string>();

const beaconKey = (siteId: string, origin: string) => `${siteId}\u0000${origin}`;

function noteBeaconsRecorded(seen: BeaconSeen[]): void {
  if (beaconRecorded.size > 10_000) beaconRecorded.clear();
  for (const b of seen) beaconRecorded.add(beaconKey(b.siteId, b.origin));
}

/**
 * `OPTIONS /e`: the same answer for every origin. A preflight that said yes only to registered
 * origins would tell anyone, without a key, which domains this Wren serves. Letting the
 * browser send the beacon gives nothing away: the beacon itself is refused (403, without CORS
 * headers, so the page cannot even read why) unless its origin is on its site's allowlist.
 */
export function beaconPreflight(request: Request): Response {
  return new Response(null, {
    status: 204,
    headers: {
      // Allowed for every origin: the preflight grants nothing the beacon's own check does not.
      ...corsHeaders(requestOrigin(request.headers), true),
      "access-control-allow-methods": "POST",
      "access-control-allow-headers": "content-type",
      "access-control-max-age": "86400",
    },
  });
}
