/**
 * The figure each rule watches, read the way a reader would see it:
 *
 * - a site's pageviews or visitors, or a goal's conversions, over the trailing `window_hours`
 *   closed local hours: the Overview's figure for that window (reports/overview.ts windowFigures),
 *   through the same hour cells and k-filter, so a rule sees nothing the reports hide and changes
 *   only when an hour closes. A window that starts before the site was registered is not read:
 *   its hours before the site are no data, not zero, so a `below` rule on a new site would fire
 *   at once on them. The rule waits (no reading) until its whole window lies after the site's
 *   creation;
 * - a smoke-test goal's conversions over the window trailing the current minute, exact (smoke
 *   conversions are the operator's synthetic events, shown exactly everywhere);
 * - `deployment_without_smoke`: the smoke conversions beside the latest marker recorded since the
 *   rule was made whose `within_minutes` after its deployed_at have passed.
 */
import { smokeByMarker } from "../domain/smoke-conversions";
import type { AlertRule, Marker } from "../domain/alert-rules";
import type { ReadOnlyDatabase } from "../lib/read-only";
import type { Figure } from "../reports/figures";
import { cellsWithin, windowCells } from "../reports/hour-cells";
import { NOISE_KEY_SQL, noiseKeyOf } from "../reports/noise-position";
import { windowFigures } from "../reports/overview";
import { lastClosedHourEnd, lastCompleteDay } from "../reports/period";
import { legacyDays, PUBLICATION_SQL, publicationOf } from "../reports/publication";
import { effectiveZone } from "../reports/rollup";
import type { HourWindow, ReportScope } from "../reports/scope";
import { HOUR_MS, localDate } from "../reports/timezone";

const MINUTE_MS = 60_000;

/** What a rule sees now: its figure, over which window, and (deployment_without_smoke) which marker. */
export interface RuleReading {
  figure: Figure;
  window: HourWindow;
  /** When the figure was decided: the window's end (a closed hour's end, or the current minute). */
  at: number;
  deployment: Marker | null;
}

/**
 * The readings of one site's rules at `now`; a rule missing from the map has nothing to read
 * yet (nothing published, no marker due).
 */
export async function siteReadings(db: ReadOnlyDatabase, siteId: string, rules: AlertRule[], k: number, now: number): Promise<Map<string, RuleReading>> {
  const readings = new Map<string, RuleReading>();
  const hourly = rules.filter((r) => r.kind === "threshold" && !r.smoke);
  if (hourly.length > 0) await hourReadings(db, siteId, hourly, k, readings);
  for (const rule of rules) {
    if (rule.kind === "threshold" && rule.smoke) readings.set(rule.id, await smokeReading(db, rule, now));
    else if (rule.kind === "deployment_without_smoke") {
      const reading = await deploymentReading(db, rule, now);
      if (reading) readings.set(rule.id, reading);
    }
  }
  return readings;
}

/** The site's hourly rules' readings at the last closed hour that publication allows. */
async function hourReadings(db: ReadOnlyDatabase, siteId: string, rules: AlertRule[], k: number, out: Map<string, RuleReading>): Promise<void> {
  const [siteRows, publicationRows, keyRows] = await db.queryAll([
    { sql: "SELECT timezone, created_at FROM sites WHERE id = ?", args: [siteId] },
    PUBLICATION_SQL,
    NOISE_KEY_SQL,
  ]);
  const publication = publicationOf(publicationRows!);
  const site = siteRows!.rows[0];
  if (!publication || !site) return;
  const zone = effectiveZone(String(site.timezone));
  const toMs = lastClosedHourEnd(zone, publication.throughMs);
  // Only rules whose whole window lies after the site's creation (module comment).
  const createdAt = Number(site.created_at);
  rules = rules.filter((r) => toMs - r.windowHours! * HOUR_MS >= createdAt);
  if (rules.length === 0) return;
  const longest = Math.max(...rules.map((r) => r.windowHours!));
  const fromMs = toMs - longest * HOUR_MS;
  const scope: ReportScope = {
    siteId,
    from: localDate(zone, fromMs),
    to: localDate(zone, toMs - 1),
    timeZone: zone,
    k,
    noise: true,
    noiseKey: noiseKeyOf(keyRows!.rows[0]),
    legacyDays: legacyDays(publication, zone),
    hours: { window: { fromMs, toMs }, lastEndedDay: lastCompleteDay(zone, publication.throughMs) },
  };
  for (const [id, reading] of await hourRuleReadings(db, scope as HourScope, rules)) out.set(id, reading);
}

export type HourScope = ReportScope & Required<Pick<ReportScope, "hours">>;

/**
 * Hourly rules' readings over windows ending where `scope.hours.window` ends (which must cover
 * the longest): one read of the hour cells, then each rule's window of them, as the Overview sums it.
 */
export async function hourRuleReadings(db: ReadOnlyDatabase, scope: HourScope, rules: AlertRule[]): Promise<Map<string, RuleReading>> {
  const out = new Map<string, RuleReading>();
  const cells = await windowCells(db, scope, null);
  const toMs = scope.hours.window.toMs;
  for (const rule of rules) {
    const own = { fromMs: toMs - rule.windowHours! * HOUR_MS, toMs };
    const figures = windowFigures(scope, cellsWithin(cells, own));
    const figure =
      rule.metric === "pageviews"
        ? figures.pageviews
        : rule.metric === "visitors"
          ? figures.visitors
          : figures.conversions.rows.find((row) => row.goal.id === rule.goalId)?.conversions;
    if (figure) out.set(rule.id, { figure, window: own, at: toMs, deployment: null });
  }
  return out;
}

async function smokeReading(db: ReadOnlyDatabase, rule: AlertRule, now: number): Promise<RuleReading> {
  const toMs = Math.floor(now / MINUTE_MS) * MINUTE_MS;
  const window = { fromMs: toMs - rule.windowHours! * HOUR_MS, toMs };
  const rows = await db.query({
    sql: "SELECT count(*) AS n FROM smoke_conversions WHERE site_id = ? AND goal_id = ? AND ts >= ? AND ts < ?",
    args: [rule.siteId, rule.goalId!, window.fromMs, window.toMs],
  });
  return { figure: { value: Number(rows.rows[0]!.n), qualifier: "exact" }, window, at: toMs, deployment: null };
}

async function deploymentReading(db: ReadOnlyDatabase, rule: AlertRule, now: number): Promise<RuleReading | null> {
  const within = rule.withinMinutes! * MINUTE_MS;
  const found = await db.query({
    sql: "SELECT id, version, external_id, ts FROM deployments WHERE site_id = ? AND created_at >= ? AND ts <= ? ORDER BY ts DESC, id DESC LIMIT 1",
    args: [rule.siteId, rule.createdAt, now - within],
  });
  const m = found.rows[0];
  if (!m) return null;
  const marker = { id: String(m.id), version: String(m.version), externalId: String(m.external_id), ts: Number(m.ts) };
  const smoke = (await smokeByMarker(db, rule.siteId, [marker])).get(marker.id) ?? [];
  return {
    figure: { value: smoke.length, qualifier: "exact" },
    window: { fromMs: marker.ts, toMs: marker.ts + within },
    at: Math.floor(now / MINUTE_MS) * MINUTE_MS,
    deployment: { id: marker.id, version: marker.version, deployed_at: new Date(marker.ts).toISOString() },
  };
}
