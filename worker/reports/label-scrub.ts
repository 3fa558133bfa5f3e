/**
 * Labels that outlive no one (docs/reports.md, "Hidden rows and labels"; run by retention.ts):
 * once raw retention has passed for a local day, every label of that day's rollup cells that
 * was never shown — a path, a campaign, a referrer host whose cells are hidden that day and on
 * every day of its role (the pages report, or its dimension) — is replaced by an opaque token.
 * The counts stay, and so does everything a decision of that day reads:
 *
 * - Cells stay distinct: one token per label and day, the same in every table of the day, so
 *   the joins by label (a page-day and its vitals and histograms, an entry page and its
 *   page-day, a goal cell and its value cell) still meet.
 * - Ties are broken the same: a decision that picks a cover among equal cells takes the first
 *   label, and a never-shown label that was a candidate was the one picked (any other candidate
 *   is shown). A token is U+0001 then a counter in control characters: after the no-value and
 *   small-cells keys (U+0000…), before every label (the collector keeps no control character).
 * - Page, time and scroll goals read which paths their pattern matches: a path matched by such
 *   a goal with a goal-day atom that day is kept (no goal gains atoms on a day whose raw rows
 *   are gone), and a token matches no pattern that does not match every path.
 *
 * Progress is a watermark per site (rollup_watermarks `labels:<site>`: the last day done, as
 * days since 1970), a few days per run, so a backlog never holds the write lock for long.
 */
import type { Client, InValue } from "@libsql/client/web";
import { readOnly } from "../lib/read-only";
import { dimensionDays } from "./breakdown";
import { DIMENSIONS, type Dimension } from "./dimensions";
import { pathFilter } from "./pattern";
import { PAGE_ATOMS_SQL } from "./privacy";

/** Days per site one run scrubs at most. */
export const SCRUB_DAYS_PER_RUN = 7;

const DAY_MS = 86_400_000;
const TOKEN_START = "\u0001";

/** Whether a stored label is already a token. */
export const isToken = (label: string): boolean => label.startsWith(TOKEN_START);

/** The n-th token of a day: U+0001, then n in base 16 written with U+0010–U+001F, six digits. */
export function labelToken(n: number): string {
  let digits = "";
  for (let i = 0; i < 6; i++, n = Math.floor(n / 16)) digits = String.fromCharCode(0x10 + (n % 16)) + digits;
  return TOKEN_START + digits;
}

/** The tables and columns that hold a day's labels: paths, then dimension values. */
const PATH_TABLES = [
  "rollup_page_day",
  "rollup_page_day_units",
  "rollup_vital_day",
  "rollup_vital_day_units",
  "rollup_vital_histogram",
];
const VALUE_TABLES = ["rollup_dimension_day", "rollup_goal_dimension_day"];
/** Value columns of the nesting rule's pair cells (dimension-pairs.ts): joined on the same values, so they take the same tokens. */
const PAIR_COLUMNS = ["parent_value", "child_value"];

const dayNumber = (day: string) => Math.round(Date.parse(`${day}T00:00:00Z`) / DAY_MS);

export interface ScrubOptions {
  k: number;
  /** Days before this local date are past raw retention (retention.ts daysBefore). */
  before: string;
  daysPerRun?: number;
}

/** Scrubs up to `daysPerRun` days per site; returns the labels replaced and whether days remain. */
export async function scrubLabels(client: Client, options: ScrubOptions): Promise<{ scrubbed: number; more: boolean }> {
  const perRun = options.daysPerRun ?? SCRUB_DAYS_PER_RUN;
  const sites = await client.execute({
    sql:
      "SELECT s.site_id AS site_id, s.day AS day FROM rollup_site_day s LEFT JOIN rollup_watermarks w ON w.source = 'labels:' || s.site_id " +
      "WHERE s.day < ? AND (w.last_id IS NULL OR (julianday(s.day) - 2440587.5) > w.last_id) ORDER BY s.site_id, s.day",
    args: [options.before],
  });
  const bySite = new Map<string, string[]>();
  for (const r of sites.rows) {
    const site = String(r.site_id);
    if (!bySite.has(site)) bySite.set(site, []);
    bySite.get(site)!.push(String(r.day));
  }
  let scrubbed = 0;
  let more = false;
  for (const [site, days] of bySite) {
    if (days.length > perRun) more = true;
    for (const day of days.slice(0, perRun)) scrubbed += await scrubDay(client, site, day, options.k);
  }
  return { scrubbed, more };
}

/** One site-day: finds its never-shown labels, replaces them in every table, moves the watermark. */
async function scrubDay(client: Client, site: string, day: string, k: number): Promise<number> {
  const labels = await dayLabels(client, site, day);
  const kept = new Set<string>();
  await keepShownPaths(client, site, labels.paths, k, kept);
  for (const [dimension, values] of labels.values) await keepShownValues(client, site, dimension, values, k, kept);
  await keepGoalPaths(client, site, day, labels.paths, kept);
  const all = [...new Set([...labels.paths, ...[...labels.values.values()].flatMap((v) => [...v])])]
    .filter((l) => !kept.has(l))
    .sort();
  const tokens = Object.fromEntries(all.map((label, i) => [label, labelToken(i)]));
  const map = JSON.stringify(tokens);
  const update = (table: string, column: string) => ({
    sql: `UPDATE ${table} SET ${column} = m.value FROM json_each(?1) m WHERE ${table}.site_id = ?2 AND ${table}.day = ?3 AND ${table}.${column} = m.key`,
    args: [map, site, day] as InValue[],
  });
  await client.batch(
    [
      ...(all.length > 0
        ? [
            ...PATH_TABLES.map((t) => update(t, "path")),
            ...VALUE_TABLES.map((t) => update(t, "value")),
            ...PAIR_COLUMNS.map((c) => update("rollup_dimension_pair_day", c)),
          ]
        : []),
      {
        sql: "INSERT INTO rollup_watermarks (source, last_id) VALUES (?1, ?2) ON CONFLICT (source) DO UPDATE SET last_id = max(last_id, excluded.last_id)",
        args: [`labels:${site}`, dayNumber(day)],
      },
    ],
    "write",
  );
  return all.length;
}

/** The day's labels not yet tokens: paths, and values per dimension. */
async function dayLabels(
  client: Client,
  site: string,
  day: string,
): Promise<{ paths: Set<string>; values: Map<Dimension, Set<string>> }> {
  const pathSql = PATH_TABLES.map((t) => `SELECT path AS label FROM ${t} WHERE site_id = ?1 AND day = ?2`).join(" UNION ");
  const valueSql = VALUE_TABLES.map((t) => `SELECT dimension, value AS label FROM ${t} WHERE site_id = ?1 AND day = ?2`).join(
    " UNION ",
  );
  const [paths, values] = await client.batch(
    [
      { sql: pathSql, args: [site, day] },
      { sql: valueSql, args: [site, day] },
    ],
    "read",
  );
  const byDimension = new Map<Dimension, Set<string>>();
  for (const r of values!.rows) {
    const label = String(r.label);
    const dimension = String(r.dimension) as Dimension;
    if (isToken(label) || !(DIMENSIONS as readonly string[]).includes(dimension)) continue;
    if (!byDimension.has(dimension)) byDimension.set(dimension, new Set());
    byDimension.get(dimension)!.add(label);
  }
  return { paths: new Set(paths!.rows.map((r) => String(r.label)).filter((l) => !isToken(l))), values: byDimension };
}

/** Paths the pages report shows on some day (a vitals row is shown only where its page is). */
async function keepShownPaths(client: Client, site: string, paths: Set<string>, k: number, kept: Set<string>): Promise<void> {
  if (paths.size === 0) return;
  // Only days where a path has k visitors can show it.
  const range = await client.execute({
    sql: "SELECT min(day) AS a, max(day) AS b FROM rollup_page_day WHERE site_id = ?1 AND visitors >= ?2 AND path IN (SELECT value FROM json_each(?3))",
    args: [site, k, JSON.stringify([...paths])],
  });
  const from = range.rows[0]?.a;
  if (from === null || from === undefined) return;
  const to = String(range.rows[0]!.b);
  const rs = await client.execute({
    sql: `WITH ${PAGE_ATOMS_SQL} SELECT DISTINCT path FROM page_atoms WHERE visible = 1 AND path IN (SELECT value FROM json_each(?5))`,
    args: [k, site, from, to, JSON.stringify([...paths])],
  });
  for (const r of rs.rows) kept.add(String(r.path));
}

/** Values the breakdown of their dimension shows on some day. */
async function keepShownValues(
  client: Client,
  site: string,
  dimension: Dimension,
  values: Set<string>,
  k: number,
  kept: Set<string>,
): Promise<void> {
  // Only days where a value has k visitors can show it.
  const rs = await client.execute({
    sql: "SELECT min(day) AS a, max(day) AS b FROM rollup_dimension_day WHERE site_id = ?1 AND dimension = ?2 AND visitors >= ?3 AND value IN (SELECT value FROM json_each(?4))",
    args: [site, dimension, k, JSON.stringify([...values])],
  });
  const from = rs.rows[0]?.a;
  if (from === null || from === undefined) return;
  const scope = { siteId: site, from: String(from), to: String(rs.rows[0]!.b), timeZone: "UTC", k };
  const { days } = await dimensionDays(readOnly(client), scope, dimension, []);
  for (const decided of days.values()) for (const v of values) if (decided.values.get(v)?.visible) kept.add(v);
}

/** Paths matched by a page, time or scroll goal with an atom that day: the goal's decisions read them. */
async function keepGoalPaths(client: Client, site: string, day: string, paths: Set<string>, kept: Set<string>): Promise<void> {
  if (paths.size === 0) return;
  const rs = await client.execute({
    sql: "SELECT g.match AS match FROM goals g WHERE g.site_id = ?1 AND g.kind IN ('page', 'time', 'scroll') AND EXISTS (SELECT 1 FROM rollup_goal_day d WHERE d.site_id = ?1 AND d.goal_id = g.id AND d.day = ?2)",
    args: [site, day],
  });
  for (const r of rs.rows) {
    const matches = pathFilter(String(r.match));
    for (const p of paths) if (matches(p)) kept.add(p);
  }
}
