/**
 * The rows one request asks the writer to store, and the SQL that stores many requests'
 * rows at once: each table gets one multi-row statement per flush (chunked under SQLite's
 * variable limit), sessions and site_beacons are merged per key first. Plain SQLite only,
 * so the same statements run on the embedded server, sqld and Turso.
 */
import type { InStatement, InValue } from "@libsql/client/web";

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
  source: "beacon" | "s2s";
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

export interface IngestRequest {
  events: EventRow[];
  vitals: VitalRow[];
  sessions: SessionTouch[];
  beacons: BeaconSeen[];
  conversions: ConversionRow[];
  /** Sites whose current token version the caller needs back (the s2s token path). */
  tokenSites: string[];
}

export function emptyRequest(): IngestRequest {
  return { events: [], vitals: [], sessions: [], beacons: [], conversions: [], tokenSites: [] };
}

const ROWS_PER_STATEMENT = 400;

function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

function valuesClause(rowCount: number, columns: number): string {
  const row = `(${new Array(columns).fill("?").join(", ")})`;
  return new Array(rowCount).fill(row).join(", ");
}

function mergeSessions(touches: SessionTouch[]): Array<{ id: string; siteId: string; first: number; last: number; entryPath: string | null }> {
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
  for (const part of chunks(sessions)) {
    statements.push({
      sql:
        `INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path) VALUES ${valuesClause(part.length, 5)} ` +
        "ON CONFLICT (id) DO UPDATE SET last_seen = max(sessions.last_seen, excluded.last_seen), " +
        "entry_path = coalesce(sessions.entry_path, excluded.entry_path)",
      args: part.flatMap((s) => [s.id, s.siteId, s.first, s.last, s.entryPath]),
    });
  }
  for (const part of chunks(all.flatMap((r) => r.events))) {
    statements.push({
      sql: `INSERT INTO events (site_id, session_id, kind, name, path, referrer, value, seconds, scroll_depth, ts) VALUES ${valuesClause(part.length, 10)}`,
      args: part.flatMap((e): InValue[] => [e.siteId, e.sessionId, e.kind, e.name, e.path, e.referrer, e.value, e.seconds, e.scrollDepth, e.ts]),
    });
  }
  for (const part of chunks(all.flatMap((r) => r.vitals))) {
    statements.push({
      sql: `INSERT INTO vitals (site_id, session_id, path, metric, value, ts) VALUES ${valuesClause(part.length, 6)}`,
      args: part.flatMap((v): InValue[] => [v.siteId, v.sessionId, v.path, v.metric, v.value, v.ts]),
    });
  }
  for (const part of chunks(mergeBeacons(all.flatMap((r) => r.beacons)))) {
    statements.push({
      sql:
        `INSERT INTO site_beacons (site_id, origin, first_seen, path) VALUES ${valuesClause(part.length, 4)} ` +
        "ON CONFLICT (site_id, origin) DO NOTHING",
      args: part.flatMap((b) => [b.siteId, b.origin, b.ts, b.path]),
    });
  }
  for (const part of chunks(all.flatMap((r) => r.conversions))) {
    statements.push({
      // A VALUES list as a table, so each row can look up its session and check the token
      // version in the same statement. `WHERE` also keeps SQLite from reading ON CONFLICT as a join.
      sql:
        "INSERT INTO conversions (site_id, goal_id, session_id, value, source, event_key, ts) " +
        // Two primary-key lookups (current salt first), so each costs one index probe.
        "SELECT v.column1, v.column2, coalesce(v.column3, " +
        "(SELECT s.id FROM sessions s WHERE s.id = v.column4 AND s.site_id = v.column1 AND s.last_seen >= ?), " +
        "(SELECT s.id FROM sessions s WHERE s.id = v.column5 AND s.site_id = v.column1 AND s.last_seen >= ?)), " +
        `v.column6, v.column7, v.column8, v.column9 FROM (VALUES ${valuesClause(part.length, 10)}) AS v ` +
        "WHERE v.column10 IS NULL OR v.column10 = (SELECT token_version FROM sites WHERE id = v.column1) " +
        "ON CONFLICT (site_id, event_key) DO NOTHING RETURNING site_id, event_key, session_id",
      args: [
        now - windowMs,
        now - windowMs,
        ...part.flatMap((c): InValue[] => [
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
        ]),
      ],
    });
  }
  const smoke = all.flatMap((r) => r.conversions).filter((c) => c.smoke !== undefined && c.key !== null);
  for (const part of chunks(smoke)) {
    statements.push({
      // The conversion each names by its key, if it is stored (now, or before: then its smoke
      // record exists already). Its goal and source must match, so a reused id never
      // records another goal's conversion as a smoke test.
      sql:
        "INSERT INTO smoke_conversions (conversion_id, site_id, goal_id, external_id, attached, ts) " +
        "SELECT c.id, c.site_id, c.goal_id, v.column4, c.session_id IS NOT NULL, c.ts " +
        `FROM (VALUES ${valuesClause(part.length, 4)}) AS v ` +
        "JOIN conversions c ON c.site_id = v.column1 AND c.event_key = v.column2 AND c.goal_id = v.column3 AND c.source = 's2s' " +
        "WHERE true ON CONFLICT (conversion_id) DO NOTHING",
      args: part.flatMap((c): InValue[] => [c.siteId, c.key, c.goalId, c.smoke!.id]),
    });
  }
  return statements;
}
