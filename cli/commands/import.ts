/**
 * `wren import --site S --from plausible|umami|goatcounter FILE`, `wren import list` and
 * `wren import remove`: another tool's history into a site (docs/imports.md). The file is read
 * whole before anything is written; a malformed one is exit 2 naming its file and line. The
 * progress goes to stderr (a bar on a terminal, plain lines otherwise), the summary to stdout.
 */
import { SingleBar } from "cli-progress";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { basename } from "node:path";
import { recordAudit, SYSTEM_ACTOR } from "../../worker/domain/audit";
import { IMPORT_SOURCES, MalformedImport, type ImportSource } from "../../worker/domain/imports/model";
import { listImports, removeImport, runImport, type ImportProgress, type ImportSummary } from "../../worker/domain/imports/run";
import { now, useClock } from "../../worker/lib/clock";
import { CliError, print, table } from "../output";
import type { Settings } from "../settings";
import { openSiteFlag } from "../site";
import type { IMPORT_LIST_OPTIONS, IMPORT_OPTIONS, IMPORT_REMOVE_OPTIONS, Invocation } from "./registry";

/** The largest file read (Plausible's zip unpacks to at most 1 GiB as well). */
const MAX_FILE_BYTES = 1024 * 1024 * 1024;

function sourceOf(value: string | undefined): ImportSource {
  if (value && (IMPORT_SOURCES as readonly string[]).includes(value)) return value as ImportSource;
  throw new CliError(`--from: must be one of ${IMPORT_SOURCES.join(", ")}`, 2);
}

/** The file's bytes; a missing, unreadable or oversized file is a usage error naming it. */
function readFile(path: string): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`${path}: ${code === "ENOENT" ? "no such file" : "cannot be read"}`, 2);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new CliError(`${path}: not a file`, 2);
    if (stat.size > MAX_FILE_BYTES) throw new CliError(`${path}: larger than 1 GiB`, 2);
    const bytes = new Uint8Array(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** Progress on stderr: a bar on a terminal, a line per batch otherwise (a log keeps them). */
function progressReporter(): { update(p: ImportProgress): void; stop(): void } {
  if (process.stderr.isTTY) {
    const bar = new SingleBar({ stream: process.stderr, format: "importing [{bar}] {value}/{total} days", hideCursor: true });
    let started = false;
    return {
      update(p) {
        if (!started) bar.start(p.daysTotal, 0);
        started = true;
        bar.update(p.daysWritten);
      },
      stop: () => started && bar.stop(),
    };
  }
  return { update: (p) => void process.stderr.write(`imported ${p.daysWritten} of ${p.daysTotal} days\n`), stop() {} };
}

export function summaryJson(s: ImportSummary) {
  return {
    id: s.id,
    site: s.siteId,
    source: s.source,
    file_name: s.fileName,
    status: s.status,
    unchanged: s.unchanged,
    resumed: s.resumed,
    rows_read: s.rowsRead,
    rows_refused: s.rowsRefused,
    days_imported: s.daysImported,
    first_day: s.firstDay,
    last_day: s.lastDay,
    refusals: s.refusals,
    created_at: new Date(s.createdAt).toISOString(),
    finished_at: s.finishedAt === null ? null : new Date(s.finishedAt).toISOString(),
  };
}

function summaryText(s: ImportSummary): string {
  if (s.unchanged) {
    return `Already imported: ${s.fileName} is import ${s.id} (${s.daysImported} days); nothing was written.`;
  }
  const span = s.firstDay === null ? "" : s.firstDay === s.lastDay ? ` (${s.firstDay})` : ` (${s.firstDay} … ${s.lastDay})`;
  const lines = [
    `${s.resumed ? "Resumed and finished" : "Imported"} ${s.fileName} (${s.source}) into ${s.siteId} as ${s.id}.`,
    `  rows read      ${s.rowsRead}`,
    `  days imported  ${s.daysImported}${span}`,
    `  rows refused   ${s.rowsRefused}`,
  ];
  for (const [reason, count] of Object.entries(s.refusals.counts)) {
    const where = s.refusals.examples.filter((e) => e.reason === reason).map((e) => `${e.file}:${e.line}`);
    lines.push(
      `    ${String(count).padStart(6)}  ${reason}${where.length > 0 ? ` (${where.join(", ")}${count > where.length ? ", …" : ""})` : ""}`,
    );
  }
  return lines.join("\n");
}

export async function importCommand(
  settings: Settings,
  { values, positionals }: Invocation<typeof IMPORT_OPTIONS>,
): Promise<void> {
  const source = sourceOf(values.from);
  const path = positionals[0]!;
  const bytes = readFile(path);
  const { db, site } = await openSiteFlag(settings, values.site);
  useClock({ WREN_TEST_CLOCK_OFFSET_MS: process.env.WREN_TEST_CLOCK_OFFSET_MS });
  const fileName = basename(path);
  const progress = progressReporter();
  let summary: ImportSummary;
  try {
    summary = await runImport(db.$client, {
      siteId: site.id,
      source,
      fileName,
      bytes,
      createdBy: "cli",
      now,
      onProgress: (p) => progress.update(p),
    });
  } catch (error) {
    if (error instanceof MalformedImport) {
      // A zip's member is named inside the file the user gave.
      const where = error.file === fileName ? path : `${path}: ${error.file}`;
      throw new CliError(`${where}, line ${error.line}: ${error.reason}`, 2, "malformed");
    }
    throw error;
  } finally {
    progress.stop();
  }
  if (!summary.unchanged) {
    await recordAudit(db, {
      actor: SYSTEM_ACTOR,
      action: "import.create",
      siteId: site.id,
      target: summary.id,
      detail: { source, file: fileName, days: summary.daysImported },
    });
  }
  print(values.json ?? false, summaryJson(summary), () => summaryText(summary));
}

export async function listImportsCommand(settings: Settings, { values }: Invocation<typeof IMPORT_LIST_OPTIONS>): Promise<void> {
  const { db, site } = await openSiteFlag(settings, values.site);
  const imports = (await listImports(db.$client, site.id)).map(summaryJson);
  print(values.json ?? false, { imports }, () =>
    table(
      imports.map((i) => ({
        ...i,
        days: i.days_imported,
        first: i.first_day,
        last: i.last_day,
        file: i.file_name,
        rows: i.rows_read,
        refused: i.rows_refused,
      })),
      ["id", "source", "file", "status", "days", "first", "last", "rows", "refused"],
    ),
  );
}

export async function removeImportCommand(
  settings: Settings,
  { values, positionals }: Invocation<typeof IMPORT_REMOVE_OPTIONS>,
): Promise<void> {
  const id = positionals[0]!;
  const { db, site } = await openSiteFlag(settings, values.site);
  if (!(await removeImport(db.$client, site.id, id))) throw new CliError(`no import ${id} on ${site.id}`, 1, "not_found");
  await recordAudit(db, { actor: SYSTEM_ACTOR, action: "import.remove", siteId: site.id, target: id });
  print(values.json ?? false, { id, removed: true }, () => `Removed import ${id} and the days it held.`);
}
