/**
 * Running an import (docs/imports.md): read the file whole (a malformed one writes nothing),
 * keep the days no collected data covers, and write them in batches that each also move the
 * import's `resume_after`, so a crash loses nothing and the same file again resumes after the
 * last day written. The same file for the same site once `done` writes nothing: its SHA-256
 * finds the earlier run.
 *
 * Overlap: a day is imported only before the site's first collected day (its earliest
 * rollup_site_day, or its first raw event) and before yesterday in its zone (an event up to
 * 24 h late may still land on yesterday). Imported and collected data never share a day.
 */
import type { Client, InStatement, Row } from "@libsql/client/web";
import { newId } from "../../lib/ids";
import { addDays, localDate } from "../../reports/timezone";
import { deleteImportStatements, replaceDayStatements } from "./days";
import { readImport } from "./formats";
import type { ImportedDay, ImportSource, RefusedRow } from "./model";

/** Days per write batch at most: a batch is one transaction. */
export const DAYS_PER_BATCH = 50;
/**
 * Cells per write batch at most (a day is never split: a day with more is a batch of its own),
 * so that a batch stays a few MB, under the embedded server's 10 MiB request.
 */
export const CELLS_PER_BATCH = 20_000;
/** A day with more report rows than this is refused: written whole, it would not fit one request. */
export const MAX_CELLS_PER_DAY = 100_000;
export const TOO_MANY_CELLS = `more than ${MAX_CELLS_PER_DAY.toLocaleString("en")} report rows in one day`;
/** Refused rows kept as examples, per reason. */
const EXAMPLES_PER_REASON = 3;

export const COLLECTED_DAY = "collected data exists for this day";
export const TOO_RECENT = "too recent";

export interface ImportProgress {
  /** Days written so far by this import (a resumed run counts the earlier run's too). */
  daysWritten: number;
  daysTotal: number;
}

export interface RunImportInput {
  siteId: string;
  source: ImportSource;
  fileName: string;
  bytes: Uint8Array;
  /** Who runs it: "cli", or the principal's id. */
  createdBy: string;
  now(): number;
  /** Called after each batch is written; an error it throws stops the run (which resumes later). */
  onProgress?(progress: ImportProgress): void | Promise<void>;
}

/** Refused rows by reason, with the first few of each (file and line). */
export interface Refusals {
  counts: Record<string, number>;
  examples: RefusedRow[];
}

export interface ImportSummary {
  id: string;
  siteId: string;
  source: ImportSource;
  fileName: string;
  status: "running" | "done";
  /** true: this file was imported before, and nothing was written. */
  unchanged: boolean;
  /** true: this run finished an interrupted one. */
  resumed: boolean;
  rowsRead: number;
  rowsRefused: number;
  daysImported: number;
  firstDay: string | null;
  lastDay: string | null;
  refusals: Refusals;
  createdBy: string;
  createdAt: number;
  finishedAt: number | null;
}

/** Thrown when the site does not exist. */
export class ImportSiteMissing extends Error {
  constructor(readonly siteId: string) {
    super(`no site ${siteId}`);
    this.name = "ImportSiteMissing";
  }
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function summaryOf(row: Row, unchanged: boolean, resumed: boolean): ImportSummary {
  return {
    id: String(row.id),
    siteId: String(row.site_id),
    source: String(row.source) as ImportSource,
    fileName: String(row.file_name),
    status: row.status === "done" ? "done" : "running",
    unchanged,
    resumed,
    rowsRead: Number(row.rows_read),
    rowsRefused: Number(row.rows_refused),
    daysImported: Number(row.days_imported),
    firstDay: row.first_day === null ? null : String(row.first_day),
    lastDay: row.last_day === null ? null : String(row.last_day),
    refusals: { counts: {}, examples: [], ...(JSON.parse(String(row.refusals)) as Partial<Refusals>) },
    createdBy: String(row.created_by),
    createdAt: Number(row.created_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
  };
}

async function importRow(client: Client, siteId: string, where: "id" | "file_sha256", value: string): Promise<Row | undefined> {
  const rs = await client.execute({ sql: `SELECT * FROM imports WHERE site_id = ? AND ${where} = ?`, args: [siteId, value] });
  return rs.rows[0];
}

/** The first local day with collected data (rollups or a raw event), or null when there is none. */
async function firstCollectedDay(client: Client, siteId: string, timeZone: string): Promise<string | null> {
  const rs = await client.execute({
    sql:
      "SELECT (SELECT min(day) FROM rollup_site_day WHERE site_id = ?) AS day, " +
      "(SELECT min(ts) FROM events WHERE site_id = ?) AS ts",
    args: [siteId, siteId],
  });
  const row = rs.rows[0]!;
  const days = [row.day === null ? null : String(row.day), row.ts === null ? null : localDate(timeZone, Number(row.ts))];
  return days.filter((d): d is string => d !== null).sort()[0] ?? null;
}

/** Rows refused together, under one reason: a whole day's (only its first row is named), or one row. */
interface RefusedGroup {
  reason: string;
  rows: number;
  first: { file: string; line: number } | null;
}

/** The days the overlap rule keeps, and the others' rows as refused. */
function keptDays(days: ImportedDay[], firstCollected: string | null, yesterday: string) {
  const kept: ImportedDay[] = [];
  const refused: RefusedGroup[] = [];
  for (const day of days) {
    const reason =
      firstCollected !== null && day.day >= firstCollected
        ? COLLECTED_DAY
        : day.day >= yesterday
          ? TOO_RECENT
          : day.cells.length > MAX_CELLS_PER_DAY
            ? TOO_MANY_CELLS
            : null;
    if (reason === null) kept.push(day);
    else refused.push({ reason, rows: day.origin?.rows ?? 0, first: day.origin?.first ?? null });
  }
  return { kept, refused };
}

/** The days in write batches: at most DAYS_PER_BATCH days and CELLS_PER_BATCH cells each, a day never split. */
export function batchesOf(days: readonly ImportedDay[]): ImportedDay[][] {
  const batches: ImportedDay[][] = [];
  let batch: ImportedDay[] = [];
  let cells = 0;
  for (const day of days) {
    if (batch.length > 0 && (batch.length === DAYS_PER_BATCH || cells + day.cells.length > CELLS_PER_BATCH)) {
      batches.push(batch);
      batch = [];
      cells = 0;
    }
    batch.push(day);
    cells += day.cells.length;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

function refusalsOf(groups: RefusedGroup[]): Refusals {
  const counts: Record<string, number> = {};
  const examples: RefusedRow[] = [];
  const shown: Record<string, number> = {};
  for (const { reason, rows, first } of groups) {
    counts[reason] = (counts[reason] ?? 0) + rows;
    if (first && (shown[reason] ?? 0) < EXAMPLES_PER_REASON) {
      shown[reason] = (shown[reason] ?? 0) + 1;
      examples.push({ ...first, reason });
    }
  }
  return { counts, examples };
}

export async function runImport(client: Client, input: RunImportInput): Promise<ImportSummary> {
  const site = (await client.execute({ sql: "SELECT timezone, domain FROM sites WHERE id = ?", args: [input.siteId] })).rows[0];
  if (!site) throw new ImportSiteMissing(input.siteId);
  const timeZone = String(site.timezone);
  const hash = await sha256Hex(input.bytes);
  const earlier = await importRow(client, input.siteId, "file_sha256", hash);
  const read = () =>
    readImport(input.source, { name: input.fileName, bytes: input.bytes }, { timeZone, siteHosts: [String(site.domain)] });
  if (earlier?.status === "done") {
    // The same bytes given as another tool's export are read as that tool's: a wrong source is refused, not "unchanged".
    if (earlier.source !== input.source) read();
    return summaryOf(earlier, true, false);
  }

  // Read whole before anything is written: a malformed file throws here.
  const parsed = read();
  const yesterday = addDays(localDate(timeZone, input.now()), -1);
  const { kept, refused } = keptDays(parsed.days, await firstCollectedDay(client, input.siteId, timeZone), yesterday);
  const groups = [...parsed.refused.map(({ file, line, reason }) => ({ reason, rows: 1, first: { file, line } })), ...refused];
  const refusals = refusalsOf(groups);
  const rowsRefused = groups.reduce((sum, group) => sum + group.rows, 0);

  let importId: string;
  let resumeAfter: string | null = null;
  let written = 0;
  if (earlier) {
    importId = String(earlier.id);
    resumeAfter = earlier.resume_after === null ? null : String(earlier.resume_after);
    written = Number(earlier.days_imported);
  } else {
    importId = newId("imp");
    await client.execute({
      sql:
        "INSERT INTO imports (id, site_id, source, file_name, file_sha256, status, rows_read, rows_refused, first_day, last_day, refusals, created_by, created_at) " +
        "VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (site_id, file_sha256) DO NOTHING",
      args: [
        importId,
        input.siteId,
        input.source,
        input.fileName,
        hash,
        parsed.rowsRead,
        rowsRefused,
        kept[0]?.day ?? null,
        kept[kept.length - 1]?.day ?? null,
        JSON.stringify(refusals),
        input.createdBy,
        input.now(),
      ],
    });
    // Another run of the same file may have started between the read and the insert: go on as its resumption.
    const row = (await importRow(client, input.siteId, "file_sha256", hash))!;
    importId = String(row.id);
  }

  const toWrite = kept.filter((day) => resumeAfter === null || day.day > resumeAfter);
  const daysTotal = written + toWrite.length;
  for (const batch of batchesOf(toWrite)) {
    const statements: InStatement[] = batch.flatMap((day) => replaceDayStatements(input.siteId, importId, day));
    statements.push({
      sql: "UPDATE imports SET resume_after = ?, days_imported = days_imported + ? WHERE id = ?",
      args: [batch[batch.length - 1]!.day, batch.length, importId],
    });
    await client.batch(statements, "write");
    written += batch.length;
    await input.onProgress?.({ daysWritten: written, daysTotal });
  }
  await client.execute({
    sql: "UPDATE imports SET status = 'done', finished_at = ? WHERE id = ?",
    args: [input.now(), importId],
  });
  const done = (await importRow(client, input.siteId, "id", importId))!;
  return summaryOf(done, false, earlier !== undefined);
}

/** A site's imports, newest first. */
export async function listImports(client: Client, siteId: string): Promise<ImportSummary[]> {
  const rs = await client.execute({
    sql: "SELECT * FROM imports WHERE site_id = ? ORDER BY created_at DESC, id",
    args: [siteId],
  });
  return rs.rows.map((row) => summaryOf(row, false, false));
}

/** Removes an import and the days it still owns; false when the site has no such import. */
export async function removeImport(client: Client, siteId: string, importId: string): Promise<boolean> {
  if (!(await importRow(client, siteId, "id", importId))) return false;
  await client.batch(deleteImportStatements(siteId, importId), "write");
  return true;
}
