/**
 * The rows one request asks the writer to store, and the SQL that stores many requests'
 * rows at once: each table gets one statement per flush, its rows in one JSON argument
 * (sessions and site_beacons merged per key first). Plain SQLite (its JSON functions) only,
 * so the same statements run on the embedded server, sqld and Turso.
 */
import type { InStatement } from "@libsql/client/web";
import type { RevenueDropReason } from "../lib/schema/revenue";

export interface EventRow {
  siteId: string;
  sessionId: string | null;
  kind: "pageview" | "event" | "engagement";
  name: string | null;
  path: string;
  referrer: string | null;
  value: number | null;
  seconds: number | null;
  scrollDepth: number | null;
  ts: number;
  /** A pageview's dimensions (dimensions/visitor.ts); null on other kinds. */
  dimensions: PageviewDimensions | null;
  /** The custom properties kept (collector/props.ts), as stored: a JSON object; null when none. */
  props?: string | null;
}

/** What the collector derives for a pageview: coarse values only, never the User-Agent or address. */
export interface PageviewDimensions {
  source: string;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmContent: string | null;
  utmTerm: string | null;
  browser: string | null;
  os: string | null;
  device: string | null;
  country: string | null;
}

export interface VitalRow {
  siteId: string;
  sessionId: string | null;
  path: string;
  metric: string;
  value: number;
  ts: number;
}

/**
 * A session seen by a beacon: created, or its last_seen moved on. No pageview count: nothing
 * reads one session's count (the sessions list does not show it; reports count events).
 */
export interface SessionTouch {
  id: string;
  siteId: string;
  ts: number;
  entryPath: string | null;
}

/** A beacon accepted from an origin: what the site wizard's verification reads (its first only). */
export interface BeaconSeen {
  siteId: string;
  origin: string;
  ts: number;
  /** The beacon's first event's path. */
  path: string;
}

export interface ConversionRow {
  siteId: string;
  goalId: string;
  value: number | null;
  /** Revenue in integer cents and its currency (the goal's), or nulls. */
  revenue?: { cents: number; currency: string } | null;
  source: "beacon" | "s2s";
  /** The custom properties kept, as on EventRow. */
  props?: string | null;
  /** conversions.event_key: an idempotency id, or a goal+session key; null counts every time. */
  key: string | null;
  ts: number;
  /** The session to attach: known (beacon), or found by these stored ids if seen in the window (s2s). */
  sessionId: string | null;
  lookup: [string, string | null] | null;
  /** s2s with a token: stored only while the site's token version still equals this. */
  tokenVersion: number | null;
  /**
   * A smoke-test goal's conversion (s2s only): also recorded in smoke_conversions, in the same
   * transaction, with the caller's `id` in plain text (null when it sent none).
   */
  smoke?: { id: string | null };
}

/** Custom properties dropped at the edge (collector/props.ts), per site, UTC day and reason. */
export interface PropDropRow {
  siteId: string;
  day: string;
  reason: string;
  count: number;
  /** s2s with a token: counted only while the site's token version still equals this (as its conversions). */
  tokenVersion: number | null;
}

export interface IngestRequest {
  events: EventRow[];
  vitals: VitalRow[];
  sessions: SessionTouch[];
  beacons: BeaconSeen[];
  conversions: ConversionRow[];
  propDrops: PropDropRow[];
  /** Sites whose current token version the caller needs back (the s2s token path). */
  tokenSites: string[];
  /** Beacon revenue amounts dropped (the conversion kept): counted per site, UTC day and reason. */
  revenueDrops?: { siteId: string; ts: number; reason: RevenueDropReason }[];
}

export function emptyRequest(): IngestRequest {
  return { events: [], vitals: [], sessions: [], beacons: [], conversions: [], propDrops: [], tokenSites: [] };
}

/**
 * Each table's rows go as one JSON array argument, unpacked by `json_each`, so the SQL text of a
 * statement is the same whatever the number of rows. The server then reuses one prepared
 * statement, and the client encodes one string instead of ten values a row: the group commit's
 * biggest costs on both sides when each row was its own `(?, ?, …)` (docs/performance.md).
 */
function jsonRows(columns: readonly string[], parameter = "?"): string {
  return `SELECT ${columns.map((name, i) => `value ->> ${i} AS ${name}`).join(", ")} FROM json_each(${parameter})`;
}

const SESSION_ROWS = jsonRows(["id", "site_id", "first_seen", "last_seen", "entry_path"]);
const EVENT_ROWS = jsonRows([
  "site_id",
  "session_id",
  "kind",
  "name",
  "path",
  "referrer",
  "value",
  "seconds",
  "scroll_depth",
  "ts",
  "source",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_content",
  "utm_term",
  "browser",
  "os",
  "device",
  "country",
  "props",
]);
const NO_DIMENSIONS = new Array<null>(10).fill(null);
const VITAL_ROWS = jsonRows(["site_id", "session_id", "path", "metric", "value", "ts"]);
const BEACON_ROWS = jsonRows(["site_id", "origin", "first_seen", "path"]);
// `?2`: the rows come second, after the start of the session window (`?1`).
const CONVERSION_ROWS = jsonRows(
  [
    "site_id",
    "goal_id",
    "session_id",
    "lookup_current",
    "lookup_previous",
    "value",
    "source",
    "event_key",
    "ts",
    "token_version",
    "revenue",
    "currency",
    "props",
  ],
  "?2",
);
const PROP_DROP_ROWS = jsonRows(["site_id", "day", "reason", "count", "token_version"]);
const SMOKE_ROWS = jsonRows(["site_id", "event_key", "goal_id", "external_id"]);

function mergeSessions(
  touches: SessionTouch[],
): Array<{ id: string; siteId: string; first: number; last: number; entryPath: string | null }> {
  const merged = new Map<string, { id: string; siteId: string; first: number; last: number; entryPath: string | null }>();
  for (const t of touches) {
    const m = merged.get(t.id);
    if (!m) merged.set(t.id, { id: t.id, siteId: t.siteId, first: t.ts, last: t.ts, entryPath: t.entryPath });
    else {
      m.first = Math.min(m.first, t.ts);
      m.last = Math.max(m.last, t.ts);
      m.entryPath ??= t.entryPath;
    }
  }
  return [...merged.values()];
}

function mergeBeacons(seen: BeaconSeen[]): BeaconSeen[] {
  const merged = new Map<string, BeaconSeen>();
  for (const b of seen) {
    const key = `${b.siteId}\u0000${b.origin}`;
    const m = merged.get(key);
    if (!m || b.ts < m.ts) merged.set(key, b);
  }
  return [...merged.values()];
}

function mergeDrops(drops: PropDropRow[]): PropDropRow[] {
  const merged = new Map<string, PropDropRow>();
  for (const d of drops) {
    const key = `${d.siteId}\u0000${d.day}\u0000${d.reason}\u0000${d.tokenVersion}`;
    const m = merged.get(key);
    if (m) m.count += d.count;
    else merged.set(key, { ...d });
  }
  return [...merged.values()];
}

/** The statement reading current token versions; first in the transaction, when asked for. */
export function tokenVersionsStatement(siteIds: string[]): InStatement | null {
  const unique = [...new Set(siteIds)];
  if (unique.length === 0) return null;
  return { sql: `SELECT id, token_version FROM sites WHERE id IN (${unique.map(() => "?").join(", ")})`, args: unique };
}

/**
 * The writes for all requests of one flush, in dependency order: sessions before the
 * events and conversions that refer to them, smoke-test records after their conversions. The
 * conversions statements return the keys they stored, so each caller learns what was new and
 * what was a duplicate.
 */
export function writeStatements(all: IngestRequest[], now: number, windowMs: number): InStatement[] {
  const statements: InStatement[] = [];
  const sessions = mergeSessions(all.flatMap((r) => r.sessions));
  if (sessions.length > 0) {
    statements.push({
      sql:
        `INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path) ${SESSION_ROWS} WHERE true ` +
        "ON CONFLICT (id) DO UPDATE SET last_seen = max(sessions.last_seen, excluded.last_seen), " +
        "entry_path = coalesce(sessions.entry_path, excluded.entry_path)",
      args: [JSON.stringify(sessions.map((s) => [s.id, s.siteId, s.first, s.last, s.entryPath]))],
    });
  }
  const events = all.flatMap((r) => r.events);
  if (events.length > 0) {
    statements.push({
      sql:
        "INSERT INTO events (site_id, session_id, kind, name, path, referrer, value, seconds, scroll_depth, ts, " +
        `source, utm_source, utm_medium, utm_campaign, utm_content, utm_term, browser, os, device, country, props) ${EVENT_ROWS}`,
      args: [
        JSON.stringify(
          events.map((e) => {
            const d = e.dimensions;
            return [
              e.siteId,
              e.sessionId,
              e.kind,
              e.name,
              e.path,
              e.referrer,
              e.value,
              e.seconds,
              e.scrollDepth,
              e.ts,
              ...(d
                ? [
                    d.source,
                    d.utmSource,
                    d.utmMedium,
                    d.utmCampaign,
                    d.utmContent,
                    d.utmTerm,
                    d.browser,
                    d.os,
                    d.device,
                    d.country,
                  ]
                : NO_DIMENSIONS),
              e.props ?? null,
            ];
          }),
        ),
      ],
    });
  }
  const vitals = all.flatMap((r) => r.vitals);
  if (vitals.length > 0) {
    statements.push({
      sql: `INSERT INTO vitals (site_id, session_id, path, metric, value, ts) ${VITAL_ROWS}`,
      args: [JSON.stringify(vitals.map((v) => [v.siteId, v.sessionId, v.path, v.metric, v.value, v.ts]))],
    });
  }
  const beacons = mergeBeacons(all.flatMap((r) => r.beacons));
  if (beacons.length > 0) {
    statements.push({
      sql: `INSERT INTO site_beacons (site_id, origin, first_seen, path) ${BEACON_ROWS} WHERE true ON CONFLICT (site_id, origin) DO NOTHING`,
      args: [JSON.stringify(beacons.map((b) => [b.siteId, b.origin, b.ts, b.path]))],
    });
  }
  const conversions = all.flatMap((r) => r.conversions);
  if (conversions.length > 0) {
    statements.push({
      // Each row looks up its session and checks the token version in the same statement.
      // `WHERE` also keeps SQLite from reading ON CONFLICT as a join.
      sql:
        "INSERT INTO conversions (site_id, goal_id, session_id, value, revenue, currency, source, event_key, ts, props) " +
        // Two primary-key lookups (current salt first), so each costs one index probe.
        "SELECT v.site_id, v.goal_id, coalesce(v.session_id, " +
        "(SELECT s.id FROM sessions s WHERE s.id = v.lookup_current AND s.site_id = v.site_id AND s.last_seen >= ?1), " +
        "(SELECT s.id FROM sessions s WHERE s.id = v.lookup_previous AND s.site_id = v.site_id AND s.last_seen >= ?1)), " +
        `v.value, v.revenue, v.currency, v.source, v.event_key, v.ts, v.props FROM (${CONVERSION_ROWS}) AS v ` +
        "WHERE v.token_version IS NULL OR v.token_version = (SELECT token_version FROM sites WHERE id = v.site_id) " +
        "ON CONFLICT (site_id, event_key) DO NOTHING RETURNING site_id, event_key, session_id",
      args: [
        now - windowMs,
        JSON.stringify(
          conversions.map((c) => [
            c.siteId,
            c.goalId,
            c.sessionId,
            c.lookup?.[0] ?? null,
            c.lookup?.[1] ?? null,
            c.value,
            c.source,
            c.key,
            c.ts,
            c.tokenVersion,
            c.revenue?.cents ?? null,
            c.revenue?.currency ?? null,
            c.props ?? null,
          ]),
        ),
      ],
    });
  }
  const drops = mergeDrops(all.flatMap((r) => r.propDrops));
  if (drops.length > 0) {
    statements.push({
      sql:
        `INSERT INTO prop_drops (site_id, day, reason, count) SELECT v.site_id, v.day, v.reason, v.count FROM (${PROP_DROP_ROWS}) AS v ` +
        "WHERE v.token_version IS NULL OR v.token_version = (SELECT token_version FROM sites WHERE id = v.site_id) " +
        "ON CONFLICT (site_id, day, reason) DO UPDATE SET count = prop_drops.count + excluded.count",
      args: [JSON.stringify(drops.map((d) => [d.siteId, d.day, d.reason, d.count, d.tokenVersion]))],
    });
  }
  const smoke = conversions.filter((c) => c.smoke !== undefined && c.key !== null);
  if (smoke.length > 0) {
    statements.push({
      // The conversion each names by its key, if it is stored (now, or before: then its smoke
      // record exists already). Its goal and source must match, so a reused id never
      // records another goal's conversion as a smoke test.
      sql:
        "INSERT INTO smoke_conversions (conversion_id, site_id, goal_id, external_id, attached, ts) " +
        `SELECT c.id, c.site_id, c.goal_id, v.external_id, c.session_id IS NOT NULL, c.ts FROM (${SMOKE_ROWS}) AS v ` +
        "JOIN conversions c ON c.site_id = v.site_id AND c.event_key = v.event_key AND c.goal_id = v.goal_id AND c.source = 's2s' " +
        "WHERE true ON CONFLICT (conversion_id) DO NOTHING",
      args: [JSON.stringify(smoke.map((c) => [c.siteId, c.key, c.goalId, c.smoke!.id]))],
    });
  }
  const revenueDrops = new Map<string, number>();
  for (const d of all.flatMap((r) => r.revenueDrops ?? [])) {
    const id = JSON.stringify([d.siteId, new Date(d.ts).toISOString().slice(0, 10), d.reason]);
    revenueDrops.set(id, (revenueDrops.get(id) ?? 0) + 1);
  }
  if (revenueDrops.size > 0) {
    statements.push({
      sql:
        `INSERT INTO revenue_drops (site_id, day, reason, count) ${jsonRows(["site_id", "day", "reason", "count"])} WHERE true ` +
        "ON CONFLICT (site_id, day, reason) DO UPDATE SET count = revenue_drops.count + excluded.count",
      args: [JSON.stringify([...revenueDrops].map(([id, count]) => [...(JSON.parse(id) as string[]), count]))],
    });
  }
  return statements;
}
