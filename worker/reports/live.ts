/**
 * The live counter (GET /api/v1/live, docs/reports.md "Live"): distinct units with any beacon
 * event of the site in the last 5 and 30 minutes, through the live rule (privacy/live.ts).
 *
 * Why this one figure reads raw rows: the rollups hold only what the publisher has folded, and
 * it publishes whole hours; the last minutes are nowhere else. The query is one index range of
 * events_site_ts (site_id, ts) over 30 minutes, through the read-only handle, and a unit is what
 * the rollups count (a session id, or "e:" and the row id without one), keyed the same way.
 * Answers are kept per (site, minute) in the isolate: the reading cannot change within its
 * minute, so any number of dashboards cost one query a minute per site.
 */
import { now } from "../lib/clock";
import { siteNotFound } from "../domain/sites";
import type { ReadOnlyDatabase } from "../lib/read-only";
import { ReportCache } from "./cache";
import { NOISE_KEY_SQL, noiseKeyOf, perturbationAt, unitKeySql } from "./noise";
import { noisePosition, type NoiseKey } from "./noise-position";
import { bandedLive, liveNextUpdate, liveWindowEnd, type LiveFigure, type LiveRule } from "./privacy";
import { PUBLISH_GRACE_MS } from "./publisher";
import { effectiveZone } from "./rollup";

/** The windows, ending together, and their lengths. */
export const LIVE_WINDOWS = { "5m": 5 * 60_000, "30m": 30 * 60_000 } as const;
export type LiveWindow = keyof typeof LIVE_WINDOWS;

export interface LiveReading {
  site: string;
  as_of: string;
  next_update: string;
  timezone: string;
  k: number;
  windows: Record<LiveWindow, LiveFigure>;
}

/** Units of the 30-minute window (one row each, with its last event), and how many of them and their key sums fall in the last 5. */
const LIVE_SQL =
  "WITH u AS (SELECT coalesce(session_id, 'e:' || id) AS unit, max(ts) AS last FROM events WHERE site_id = ?1 AND ts >= ?2 AND ts < ?4 GROUP BY 1), " +
  `k AS (SELECT last, ${unitKeySql("unit")} AS key FROM u) ` +
  "SELECT count(*) AS units30, coalesce(sum(key), 0) AS key30, coalesce(sum(last >= ?3), 0) AS units5, coalesce(sum(CASE WHEN last >= ?3 THEN key END), 0) AS key5 FROM k";

/** Shared by every request of the isolate; entries are whole minutes of one site. */
const liveCache = new ReportCache();

export interface LiveOptions {
  /** The clock (injectable for tests). */
  nowMs?: number;
  /** The rule (the attack test removes band and noise with privacy/live.ts exactLive). */
  rule?: LiveRule;
  /** Where readings are kept (tests give each run its own). */
  cache?: ReportCache;
}

/** The live reading of `siteId` at `nowMs`; computed once per site and minute. */
export function readLive(db: ReadOnlyDatabase, siteId: string, k: number, options: LiveOptions = {}): Promise<LiveReading> {
  const endMs = liveWindowEnd(options.nowMs ?? now(), PUBLISH_GRACE_MS);
  const rule = options.rule ?? bandedLive;
  const key = JSON.stringify(["live", siteId, endMs, k, rule === bandedLive]);
  return (options.cache ?? liveCache).remember(key, () => computeLive(db, siteId, k, endMs, rule));
}

async function computeLive(db: ReadOnlyDatabase, siteId: string, k: number, endMs: number, rule: LiveRule): Promise<LiveReading> {
  const [siteRows, keyRows, counts] = await db.queryAll([
    { sql: "SELECT timezone FROM sites WHERE id = ?", args: [siteId] },
    NOISE_KEY_SQL,
    { sql: LIVE_SQL, args: [siteId, endMs - LIVE_WINDOWS["30m"], endMs - LIVE_WINDOWS["5m"], endMs] },
  ]);
  const site = siteRows!.rows[0];
  if (!site) throw siteNotFound(siteId, "site");
  const noiseKey = noiseKeyOf(keyRows!.rows[0]);
  const row = counts!.rows[0]!;
  const figure = (units: number, keySum: number) => rule.figure(units, drawnPerturbation(units, keySum, noiseKey), k);
  return {
    site: siteId,
    as_of: new Date(endMs).toISOString(),
    next_update: new Date(liveNextUpdate(endMs, PUBLISH_GRACE_MS)).toISOString(),
    timezone: effectiveZone(String(site.timezone)),
    k,
    windows: {
      "5m": figure(Number(row.units5), Number(row.key5)),
      "30m": figure(Number(row.units30), Number(row.key30)),
    },
  };
}

/** The cell-key perturbation of a unit set (noise.ts perturb, before its floor): the same set draws the same. */
function drawnPerturbation(units: number, keySum: number, key: NoiseKey): number {
  return units > 0 ? perturbationAt(noisePosition(keySum, units, key)) : 0;
}
