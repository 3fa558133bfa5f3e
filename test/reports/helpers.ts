/**
 * A real libSQL database for report tests: a temporary file with the project's migrations,
 * and helpers that write raw rows the way the collector stores them (events, conversions,
 * vitals), so the rollups and reports run on them unchanged.
 */
import { createClient, type Client, type InStatement } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { MIGRATIONS_FOLDER } from "../../cli/database";
import { readOnly, type ReadOnlyDatabase } from "../../worker/lib/read-only";
import { PAGEVIEW_DIMENSIONS } from "../../worker/reports/dimensions";
import { NOISE_KEY_SQL, noiseKeyOf, shownCounts, unitKey, type NoiseKey } from "../../worker/reports/noise";
import { filteredRule, revenueRule, type RevenueCell } from "../../worker/reports/privacy";
import { parseFilter, type Filter } from "../../worker/reports/explore/filters";
import { SUPPRESSED, type Figure } from "../../worker/reports/figures";
import { unitShare } from "../../worker/reports/privacy/revenue";
import { replaceDayStatements } from "../../worker/domain/imports/days";
import type { ImportedDay, ImportedDimension, ImportSource } from "../../worker/domain/imports/model";

export interface TestDb {
  client: Client;
  /** The same database as reports get it: read-only. */
  reader: ReadOnlyDatabase;
  dir: string;
  close(): void;
}

export async function openTestDb(): Promise<TestDb> {
  const dir = mkdtempSync(join(tmpdir(), "wren-reports-"));
  const client = createClient({ url: `file:${join(dir, "wren.db")}` });
  await client.execute("PRAGMA journal_mode = WAL");
  await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
  return {
    client,
    reader: readOnly(client as never),
    dir,
    close() {
      client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Empties every table with data (between property-test runs), keeping the schema and the cell key secret. */
export async function clearData(client: Client): Promise<void> {
  const rs = await client.execute(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%' AND name != 'rollup_cell_key'",
  );
  await client.batch(
    rs.rows.map((r) => `DELETE FROM ${String(r.name)}`),
    "write",
  );
}

export async function addSite(client: Client, id: string, timezone = "UTC"): Promise<void> {
  await client.execute({
    sql: "INSERT INTO sites (id, name, domain, allowlist, timezone) VALUES (?, ?, ?, ?, ?)",
    args: [id, id, `${id}.example`, JSON.stringify([`${id}.example`]), timezone],
  });
}

export async function addGoal(client: Client, siteId: string, id: string, name = id): Promise<void> {
  await client.execute({
    sql: "INSERT INTO goals (id, site_id, name, kind, match) VALUES (?, ?, ?, 'event', ?)",
    args: [id, siteId, name, id],
  });
}

export interface RawEvent {
  site: string;
  session: string | null;
  path: string;
  ts: number;
  kind?: "pageview" | "event" | "engagement";
  /** What the collector derives for a pageview (collector/dimensions): column → value. */
  dims?: Partial<Record<EventDimension, string>>;
}

/** The dimension columns of `events`. */
const EVENT_DIMENSIONS = PAGEVIEW_DIMENSIONS;
export type EventDimension = (typeof EVENT_DIMENSIONS)[number];

export interface RawConversion {
  site: string;
  goal: string;
  session: string | null;
  ts: number;
}

export interface RawVital {
  site: string;
  session: string | null;
  path: string;
  metric: string;
  value: number;
  ts: number;
}

const CHUNK = 300;

function chunked<T>(rows: T[], build: (part: T[]) => InStatement): InStatement[] {
  const out: InStatement[] = [];
  for (let i = 0; i < rows.length; i += CHUNK) out.push(build(rows.slice(i, i + CHUNK)));
  return out;
}

export async function addEvents(client: Client, events: RawEvent[]): Promise<void> {
  if (events.length === 0) return;
  await client.batch(
    chunked(events, (part) => ({
      sql: `INSERT INTO events (site_id, session_id, kind, path, ts, ${EVENT_DIMENSIONS.join(", ")}) VALUES ${part
        .map(() => `(?, ?, ?, ?, ?${", ?".repeat(EVENT_DIMENSIONS.length)})`)
        .join(", ")}`,
      args: part.flatMap((e) => [e.site, e.session, e.kind ?? "pageview", e.path, e.ts, ...EVENT_DIMENSIONS.map((d) => e.dims?.[d] ?? null)]),
    })),
    "write",
  );
}

export async function addConversions(client: Client, conversions: RawConversion[]): Promise<void> {
  if (conversions.length === 0) return;
  await client.batch(
    chunked(conversions, (part) => ({
      sql: `INSERT INTO conversions (site_id, goal_id, session_id, source, ts) VALUES ${part.map(() => "(?, ?, ?, 's2s', ?)").join(", ")}`,
      args: part.flatMap((c) => [c.site, c.goal, c.session, c.ts]),
    })),
    "write",
  );
}

export async function addVitals(client: Client, vitals: RawVital[]): Promise<void> {
  if (vitals.length === 0) return;
  await client.batch(
    chunked(vitals, (part) => ({
      sql: `INSERT INTO vitals (site_id, session_id, path, metric, value, ts) VALUES ${part.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")}`,
      args: part.flatMap((v) => [v.site, v.session, v.path, v.metric, v.value, v.ts]),
    })),
    "write",
  );
}

/** The UTC instant of a date and time, e.g. at("2026-11-02", 9, 30). */
export function at(date: string, hour = 12, minute = 0): number {
  return Date.parse(`${date}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00Z`);
}

/** n session ids with a prefix: sessions("a", 3) = ["a0", "a1", "a2"]. */
export function sessions(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${prefix}${i}`);
}

/** The database's noise secrets (worker/reports/noise-position.ts), for scopes built by hand with `noise: true`. */
export async function noiseKey(client: Client): Promise<NoiseKey> {
  return noiseKeyOf((await client.execute(NOISE_KEY_SQL)).rows[0] as Record<string, unknown> | undefined);
}

/** A filter as the API parses it (explore/filters.ts), for a test that writes it as text; throws on a bad one. */
export function filterOf(text: string): Filter {
  const parsed = parseFilter(text);
  if ("error" in parsed) throw new Error(parsed.error);
  return parsed;
}

/**
 * What rule F shows for a cell of these (day, session) units with these events: its perturbed
 * counts, or hidden figures when fewer than k or a perturbed count below k (the noisy threshold,
 * which a cell of 6–9 sessions meets now and then, by its own secret draw).
 */
export async function filteredExpected(
  client: Client,
  ids: string[],
  events: number,
  k: number,
): Promise<{ units: Figure; events: Figure; shown: boolean }> {
  const key = await noiseKey(client);
  const keySum = ids.reduce((n, id) => n + unitKey(id, key.secret), 0);
  const s = filteredRule.shown({ units: ids.length, events, keySum }, key, k, true);
  if (!s) return { units: SUPPRESSED, events: SUPPRESSED, shown: false };
  return { units: { value: s.units, qualifier: "estimated" }, events: { value: s.events, qualifier: "estimated" }, shown: true };
}

/**
 * The revenue cell of these units, each `[unit, cents]` with one conversion, as the fold writes it
 * and the revenue rule reads it: each amount moved by its unit's own keyed fraction
 * (privacy/revenue.ts), from the database's key.
 */
export function revenueCellOf(units: readonly (readonly [string, number])[], key: NoiseKey): RevenueCell {
  const keys = units.map(([unit]) => unitKey(unit, key.secret));
  return {
    units: units.length,
    conversions: units.length,
    keySum: keys.reduce((a, b) => a + b, 0),
    cents: units.reduce((a, [, c]) => a + c, 0),
    largest: Math.max(...units.map(([, c], i) => c * (1 + unitShare(keys[i]!, key)))),
    shares: units.reduce((a, [, c], i) => a + c * unitShare(keys[i]!, key), 0),
    trueLargest: Math.max(...units.map(([, c]) => c)),
  };
}

/** The total the served revenue rule shows for these units at k (suppressed or estimated), with the database's secrets. */
export async function expectedRevenueTotal(
  client: Client,
  units: readonly (readonly [string, number])[],
  currency: string,
  k: number,
) {
  const key = await noiseKey(client);
  const value = revenueRule.shown(revenueCellOf(units, key), key, k);
  return value === null ? { value: null, qualifier: "suppressed", currency } : { value, qualifier: "estimated", currency };
}

/**
 * Which figure of a cell `shown` computes, for the post-processing (noise.ts shownCounts):
 * "units" (never below k when the true count is k or more), "events" (site-day, site-hour:
 * no clamp), or `{ eventsOf: units }`: events of a cell whose every unit has one, never below
 * the cell's units as shown.
 */
export type ShownAs = "units" | "events" | { eventsOf: number };

/**
 * What the API shows for a rollup cell whose true value is `value`: perturbed by the cell's key
 * sum (worker/reports/noise.ts), read from the database. For tests of reports through the API.
 */
export async function shown(
  client: Client,
  table: string,
  where: Record<string, string | number>,
  value: number,
  as: ShownAs,
  k = 5,
): Promise<number> {
  const keys = Object.keys(where);
  const rs = await client.execute({
    sql: `SELECT key_sum FROM ${table} WHERE ${keys.map((k) => `${k} = ?`).join(" AND ")}`,
    args: keys.map((k) => where[k]!),
  });
  if (rs.rows.length !== 1) throw new Error(`no single ${table} cell for ${JSON.stringify(where)}`);
  const keySum = Number(rs.rows[0]!.key_sum);
  const key = await noiseKey(client);
  if (as === "units") return shownCounts({ units: value, events: 0, keySum }, key, k, false).units;
  if (as === "events") return shownCounts({ units: 0, events: value, keySum }, key, k, false).events;
  return shownCounts({ units: as.eventsOf, events: value, keySum }, key, k, true).events;
}

/**
 * Fresh databases with one site each, closed after every test: `const fresh = freshSiteDbs("site_x")`
 * at the top of a file, `const db = await fresh()` in a test.
 */
export function freshSiteDbs(siteId: string): () => Promise<TestDb> {
  let open: TestDb[] = [];
  afterEach(() => {
    for (const db of open) db.close();
    open = [];
  });
  return async () => {
    const db = await openTestDb();
    open.push(db);
    await addSite(db.client, siteId);
    return db;
  };
}

/** One imported day as a test writes it: totals and cells (`[dimension, value, visitors, pageviews]`). */
export interface SeedDay {
  day: string;
  visitors: number;
  pageviews: number;
  visits?: number;
  bounces?: number;
  visitDuration?: number;
  cells?: readonly (readonly [ImportedDimension, string, number, number])[];
}

/**
 * Writes an import and its days as the importer does: its record, then each day whole through
 * the real writer (domain/imports/days.ts replaceDayStatements), in one batch.
 */
export async function addImport(client: Client, siteId: string, importId: string, source: ImportSource, days: readonly SeedDay[]): Promise<void> {
  const statements: InStatement[] = [
    {
      sql: "INSERT INTO imports (id, site_id, source, file_name, file_sha256, status, created_by, days_imported) VALUES (?, ?, ?, ?, ?, 'done', 'cli', ?)",
      args: [importId, siteId, source, `${importId}.zip`, importId.padEnd(64, "0"), days.length],
    },
  ];
  for (const d of days) {
    const day: ImportedDay = {
      day: d.day,
      totals: {
        visitors: d.visitors,
        pageviews: d.pageviews,
        visits: d.visits ?? d.visitors,
        bounces: d.bounces ?? 0,
        visitDuration: d.visitDuration ?? 0,
      },
      cells: (d.cells ?? []).map(([dimension, value, visitors, pageviews]) => ({ dimension, value, visitors, pageviews })),
    };
    statements.push(...replaceDayStatements(siteId, importId, day));
  }
  await client.batch(statements, "write");
}
