/**
 * A site's first day (GET /api/v1/sites/{id}/arrivals): what has arrived since its first
 * beacon, and when its next figures are published. Reads raw rows (sessions, events) through
 * the read-only handle, with index-backed ranges (events_site_ts; sessions_site_first_seen).
 *
 * The one rule that keeps this from following visitors (docs/reports.md, "The first day"):
 * a raw count polled every minute would say when each beacon came, and one cut at every hour
 * would still tell a quiet hour with a visit from one without, which the hourly reports hide
 * (their empty hours are suppressed until the day's first hour of k). So the count moves in
 * **steps of k sessions**: the closed local hours from the first beacon's hour are taken in
 * order, and a step ends with the first hour by which at least k sessions have started since
 * the previous step ended. Only beacons before the end of the last step are counted, perturbed
 * with the cell key method (noise.ts, keyed by those sessions) and shown as a band of width k.
 * So two readings differ only when a new group of at least k sessions is counted, by a band.
 * The count is given for the first 24 hours after the first beacon only: the raw rows are
 * kept for at least 2 days (WREN_RAW_RETENTION_DAYS ≥ 2), so retention never shrinks it.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { HttpProblem } from "../lib/problem";
import { siteNotFound } from "../domain/sites";
import { NOISE_KEY_SQL, noiseKeyOf, perturb, unitKeySql, type NoiseKey } from "./noise";
import { lastClosedHourEnd } from "./period";
import { nextFigures, type NextFigures } from "./freshness";
import { PUBLICATION_SQL, publicationOf } from "./publication";
import { effectiveZone } from "./rollup";
import { HOUR_MS, localHourStartSql, offsetSegments, offsetSql } from "./timezone";

/** How long after the first beacon arrivals are counted: the site's first day. */
export const ARRIVALS_WINDOW_MS = 24 * HOUR_MS;

/** The beacons counted, as a band: `exact` 0–0 before any beacon, `suppressed` before the first step, else `estimated`. */
export interface BeaconBand {
  low: number | null;
  high: number | null;
  qualifier: "exact" | "estimated" | "suppressed";
}

export interface Arrivals {
  site: string;
  timezone: string;
  k: number;
  /** `waiting`: no beacon yet; `first_day`: within 24 hours of the first; `ended`: the reports have it. */
  status: "waiting" | "first_day" | "ended";
  first_beacon: string | null;
  /** Until when arrivals are counted (first beacon + 24 h). */
  window_end: string | null;
  /** The end of the last step of k sessions: beacons before it are in `beacons`. */
  counted_through: string | null;
  /** Null once the window has ended. */
  beacons: BeaconBand | null;
  next_figures: NextFigures;
}

/** One closed local hour of the window: sessions that started in it, their key sum, and its events. */
interface HourCounts {
  start: number;
  sessions: number;
  keySum: number;
  events: number;
}

/**
 * The end of the last step of at least `k` sessions over `hours` (in order), and what lies
 * before it; null when no step has closed. The one rule of this file (see the header).
 */
export function lastStep(hours: HourCounts[], k: number): { end: number; events: number; keySum: number } | null {
  let pending = 0;
  let events = 0;
  let keySum = 0;
  let step: { end: number; events: number; keySum: number } | null = null;
  for (const hour of hours) {
    pending += hour.sessions;
    events += hour.events;
    keySum += hour.keySum;
    if (pending >= k) {
      step = { end: hour.start + HOUR_MS, events, keySum };
      pending = 0;
    }
  }
  return step;
}

/** The band of width k holding the perturbed count (at least k when the true count is). */
export function beaconBand(events: number, keySum: number, key: NoiseKey, k: number): BeaconBand {
  if (events < k) return { low: null, high: null, qualifier: "suppressed" };
  const shown = Math.max(k, perturb(events, keySum, key));
  const low = Math.floor(shown / k) * k;
  return { low, high: low + k - 1, qualifier: "estimated" };
}

/** The site's arrivals as the first-day screen reads them (see the header for the rule). */
export async function siteArrivals(reader: ReadOnlyDatabase, siteId: string, k: number): Promise<Arrivals> {
  const [siteRows, publicationRows, firstRows, keyRows] = await reader.queryAll([
    { sql: "SELECT timezone FROM sites WHERE id = ?", args: [siteId] },
    PUBLICATION_SQL,
    { sql: "SELECT min(first_seen) AS first FROM site_beacons WHERE site_id = ?", args: [siteId] },
    NOISE_KEY_SQL,
  ]);
  const site = siteRows!.rows[0];
  if (!site) throw siteNotFound(siteId, "id");
  const publication = publicationOf(publicationRows!);
  if (!publication) {
    throw new HttpProblem(503, "Nothing is published yet: the publisher's first run comes within seconds of start-up.", {
      headers: { "retry-after": "10" },
    });
  }
  const zone = effectiveZone(String(site.timezone));
  const through = publication.throughMs;
  const first = firstRows!.rows[0]?.first;
  const head = { site: siteId, timezone: zone, k, next_figures: nextFigures(zone, through) };
  if (first === null || first === undefined) {
    return {
      ...head,
      status: "waiting",
      first_beacon: null,
      window_end: null,
      counted_through: null,
      beacons: { low: 0, high: 0, qualifier: "exact" },
    };
  }
  const firstMs = Number(first);
  const windowEnd = firstMs + ARRIVALS_WINDOW_MS;
  const dates = { first_beacon: new Date(firstMs).toISOString(), window_end: new Date(windowEnd).toISOString() };
  if (through >= windowEnd) return { ...head, status: "ended", ...dates, counted_through: null, beacons: null };

  // Closed local hours from the first beacon's hour: rows stamped before `to` are all committed (publisher.ts, grace).
  const from = lastClosedHourEnd(zone, firstMs);
  const to = lastClosedHourEnd(zone, through);
  const hours = to > from ? await hourCounts(reader, siteId, zone, from, to) : [];
  const step = lastStep(hours, k);
  return {
    ...head,
    status: "first_day",
    ...dates,
    counted_through: step ? new Date(step.end).toISOString() : null,
    beacons: step
      ? beaconBand(step.events, step.keySum, noiseKeyOf(keyRows!.rows[0]), k)
      : { low: null, high: null, qualifier: "suppressed" },
  };
}

/** Per closed local hour in [from, to): sessions started (with their key sum) and events stored. */
async function hourCounts(
  reader: ReadOnlyDatabase,
  siteId: string,
  zone: string,
  from: number,
  to: number,
): Promise<HourCounts[]> {
  const segments = offsetSegments(zone, from, to);
  const starts = Array.from({ length: Math.round((to - from) / HOUR_MS) }, (_, i) => from + i * HOUR_MS);
  const hour = (ts: string) => localHourStartSql(ts, offsetSql(segments, ts));
  const [sessionRows, eventRows] = await reader.queryAll([
    {
      // From sessions_site_first_seen alone (site, first_seen, id: migration 0018), in index order.
      sql:
        `SELECT ${hour("first_seen")} AS hour, count(*) AS n, sum(${unitKeySql("id")}) AS key_sum FROM sessions ` +
        "WHERE site_id = ?1 AND first_seen >= ?2 AND first_seen < ?3 GROUP BY 1",
      args: [siteId, from, to],
    },
    {
      // One index range count per hour (hours are an hour long in instants): no sort of the rows.
      sql:
        `WITH hours(start) AS (VALUES ${starts.map((_, i) => `(?${i + 2})`).join(", ")}) ` +
        "SELECT start AS hour, (SELECT count(*) FROM events WHERE site_id = ?1 AND ts >= start AND ts < start + 3600000) AS n FROM hours",
      args: [siteId, ...starts],
    },
  ]);
  const byHour = new Map<number, HourCounts>();
  const at = (start: number) => {
    let counts = byHour.get(start);
    if (!counts) byHour.set(start, (counts = { start, sessions: 0, keySum: 0, events: 0 }));
    return counts;
  };
  for (const row of sessionRows!.rows) {
    const counts = at(Number(row.hour));
    counts.sessions = Number(row.n);
    counts.keySum = Number(row.key_sum);
  }
  for (const row of eventRows!.rows) if (Number(row.n) > 0) at(Number(row.hour)).events = Number(row.n);
  return [...byHour.values()].sort((a, b) => a.start - b.start);
}
