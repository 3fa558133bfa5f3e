/**
 * Importing large exports (docs/imports.md; docs/performance.md "Imports"): a Plausible zip of
 * 3 years of daily tables (300 pages, 40 sources, 60 countries, …), a Umami export of 350,000
 * pageview rows over a year (97 MB; BENCH_IMPORTS_UMAMI_ROWS=1000000 makes 276 MB, read in
 * pieces) and a GoatCounter export of 500,000 hits, each made in
 * memory (bench/import-exports.ts, seeded), then for each:
 *
 * - the reader alone (formats/ readImport): rows/s, MB/s of the file (and of its CSV, unpacked),
 *   and the peak resident memory it adds (Linux's VmHWM, reset before it; a forced GC first);
 * - the whole runImport into a fresh, migrated libSQL database file in WAL mode, as `wren import`
 *   runs it: days/s, cells/s, seconds, its peak memory (and V8's heap after each batch, to tell
 *   JavaScript's part from libSQL's); the cells written are counted back;
 * - the same file again, three times (unchanged: nothing read or written), beside the SHA-256 of
 *   its bytes alone;
 * - then the Umami export uploaded through a running service (bench/imports-api.ts), end to end,
 *   with the api workerd process's peak memory.
 *
 *   npm run bench imports
 *   BENCH_IMPORTS_UMAMI_ROWS=200000 BENCH_IMPORTS_GOATCOUNTER_ROWS=100000 BENCH_IMPORTS_PLAUSIBLE_DAYS=365 npm run bench imports
 *   BENCH_IMPORTS_ONLY=umami npm run bench imports
 *   BENCH_IMPORTS_API=umami,goatcounter npm run bench imports      (uploads through the API; "none")
 */
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { MIGRATIONS_FOLDER } from "../cli/database";
import { readImport } from "../worker/domain/imports/formats";
import type { ImportSource } from "../worker/domain/imports/model";
import { runImport } from "../worker/domain/imports/run";
import { addDays } from "../worker/reports/timezone";
import { goatCounterExport, plausibleExport, umamiExport, type GeneratedExport } from "./import-exports";
import { uploadThroughApi, type ApiUpload } from "./imports-api";
import { median } from "./alerts";
import { printJson } from "./load";
import { inScratchFolder } from "./scratch";

const PLAUSIBLE_DAYS = Number(process.env.BENCH_IMPORTS_PLAUSIBLE_DAYS ?? 3 * 365);
const UMAMI_ROWS = Number(process.env.BENCH_IMPORTS_UMAMI_ROWS ?? 350_000);
const GOATCOUNTER_ROWS = Number(process.env.BENCH_IMPORTS_GOATCOUNTER_ROWS ?? 500_000);
const ONLY = process.env.BENCH_IMPORTS_ONLY?.split(",");
/** The exports also uploaded through a running service ("none": none). */
const THROUGH_API = (process.env.BENCH_IMPORTS_API ?? "umami").split(",");
const SITE = "site_bench_imports001";
/** The site's zone: an event export is cut into its local days (a zone with DST, so the cut is not UTC's). */
const TIME_ZONE = "Europe/Berlin";

const EXPORTS: { source: ImportSource; make: () => GeneratedExport; label: string }[] = [
  { source: "plausible", make: () => plausibleExport(PLAUSIBLE_DAYS), label: `Plausible, ${PLAUSIBLE_DAYS} days` },
  { source: "umami", make: () => umamiExport(UMAMI_ROWS), label: `Umami, ${(UMAMI_ROWS / 1e3).toFixed(0)} k pageviews` },
  {
    source: "goatcounter",
    make: () => goatCounterExport(GOATCOUNTER_ROWS),
    label: `GoatCounter, ${(GOATCOUNTER_ROWS / 1e3).toFixed(0)} k hits`,
  },
];

/** A full collection, when V8 lets this process have one (the flag set at run time, so no node option is needed). */
const gc: () => void = (() => {
  try {
    setFlagsFromString("--expose-gc");
    return runInNewContext("gc") as () => void;
  } catch {
    return () => {};
  }
})();

/** Resident memory now and at its peak since the last reset, in bytes (Linux). */
function residentMemory(): { now: number; peak: number } {
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) * 1024;
  return { now: kb("VmRSS"), peak: kb("VmHWM") };
}

/** How much `work` raises the resident memory at its peak above where it started (after a GC). */
async function peakGrowth<T>(work: () => T | Promise<T>): Promise<{ value: T; ms: number; peakBytes: number }> {
  gc();
  // Writing 5 to clear_refs resets the peak (VmHWM) to the present resident size.
  writeFileSync("/proc/self/clear_refs", "5");
  const before = residentMemory().now;
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  return { value, ms, peakBytes: residentMemory().peak - before };
}

interface Figures {
  source: ImportSource;
  label: string;
  fileMB: number;
  csvMB: number;
  generateS: number;
  rows: number;
  days: number;
  cells: number;
  read: { s: number; rowsPerS: number; fileMBPerS: number; csvMBPerS: number; peakMB: number };
  import: { s: number; daysPerS: number; cellsPerS: number; peakMB: number; heapPeakMB: number };
  again: { s: number; firstS: number; sha256S: number };
}

const MB = 1024 * 1024;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

async function sha256Seconds(bytes: Uint8Array): Promise<number> {
  const started = performance.now();
  await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return (performance.now() - started) / 1000;
}

async function readAlone(source: ImportSource, file: GeneratedExport) {
  const { value, ms, peakBytes } = await peakGrowth(() =>
    readImport(source, { name: file.fileName, bytes: file.bytes }, { timeZone: TIME_ZONE, siteHosts: ["example.com"] }),
  );
  const s = ms / 1000;
  return {
    rows: value.rowsRead,
    days: value.days.length,
    cells: value.days.reduce((n, day) => n + day.cells.length, 0),
    read: {
      s,
      rowsPerS: value.rowsRead / s,
      fileMBPerS: file.bytes.length / MB / s,
      csvMBPerS: file.csvBytes / MB / s,
      peakMB: peakBytes / MB,
    },
  };
}

async function measure(source: ImportSource, label: string, make: () => GeneratedExport): Promise<Figures> {
  let started = performance.now();
  const file = make();
  const generateS = (performance.now() - started) / 1000;

  // In a function of its own: the parsed days are garbage before the import reads the file again.
  const { rows, days, cells, read } = await readAlone(source, file);

  return inScratchFolder(`imports-${source}`, async (dir) => {
    const client = createClient({ url: `file:${join(dir, "wren.db")}` });
    try {
      await client.execute("PRAGMA journal_mode = WAL");
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS_FOLDER });
      await client.execute({
        sql: "INSERT INTO sites (id, name, domain, allowlist, timezone) VALUES (?, 'bench', 'example.com', '[\"example.com\"]', ?)",
        args: [SITE, TIME_ZONE],
      });
      // A clock well after the export's last day: no day is too recent.
      const now = () => Date.parse(`${addDays(file.lastDay, 3)}T12:00:00Z`);
      const input = { siteId: SITE, source, fileName: file.fileName, bytes: file.bytes, createdBy: "cli", now };
      // V8's heap after each batch: what of the peak is JavaScript's, and what is native (libSQL's).
      let heapPeak = 0;
      const onProgress = () => void (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed));
      const first = await peakGrowth(() => runImport(client as never, { ...input, onProgress }));
      if (first.value.unchanged || first.value.daysImported !== days) {
        throw new Error(`${label}: the import wrote ${first.value.daysImported} days, the reader read ${days}`);
      }
      const stored = Number((await client.execute("SELECT count(*) AS n FROM imported_cells")).rows[0]!.n);
      if (stored !== cells) throw new Error(`${label}: ${stored} cells stored, the reader made ${cells}`);
      // Three times: the first, right after the import, also pays for V8 reclaiming the import's
      // memory; the median is what a second `wren import` of the file costs.
      const again: number[] = [];
      for (let i = 0; i < 3; i++) {
        started = performance.now();
        const summary = await runImport(client as never, input);
        again.push((performance.now() - started) / 1000);
        if (!summary.unchanged) throw new Error(`${label}: the same file again was not recognised as unchanged`);
      }
      return {
        source,
        label,
        fileMB: file.bytes.length / MB,
        csvMB: file.csvBytes / MB,
        generateS,
        rows,
        days,
        cells,
        read,
        import: {
          s: first.ms / 1000,
          daysPerS: days / (first.ms / 1000),
          cellsPerS: cells / (first.ms / 1000),
          peakMB: first.peakBytes / MB,
          heapPeakMB: heapPeak / MB,
        },
        again: { s: median(again), firstS: again[0]!, sha256S: await sha256Seconds(file.bytes) },
      };
    } finally {
      client.close();
    }
  });
}

const n = (value: number) => Math.round(value).toLocaleString("en-US");
const cols = (values: (string | number)[], widths: number[]) =>
  values.map((v, i) => (i === 0 ? String(v).padEnd(widths[i]!) : String(v).padStart(widths[i]!))).join("  ");

function printTables(results: Figures[]): void {
  const w1 = [28, 9, 9, 10, 6, 8, 8, 11, 9, 9, 10];
  console.log("\nthe reader alone (readImport)");
  console.log(
    cols(["export", "file MB", "CSV MB", "rows", "days", "cells", "read s", "rows/s", "file MB/s", "CSV MB/s", "peak +MB"], w1),
  );
  for (const r of results) {
    console.log(
      cols(
        [
          r.label,
          r.fileMB.toFixed(1),
          r.csvMB.toFixed(1),
          n(r.rows),
          n(r.days),
          n(r.cells),
          r.read.s.toFixed(2),
          n(r.read.rowsPerS),
          r.read.fileMBPerS.toFixed(1),
          r.read.csvMBPerS.toFixed(1),
          n(r.read.peakMB),
        ],
        w1,
      ),
    );
  }
  const w2 = [28, 9, 8, 9, 10, 10, 9, 9, 11];
  console.log("\nrunImport into a libSQL file (hash, read, write), then the same file again");
  console.log(cols(["export", "import s", "days/s", "cells/s", "peak +MB", "heap MB", "again s", "1st of 3", "SHA-256 s"], w2));
  for (const r of results) {
    console.log(
      cols(
        [
          r.label,
          r.import.s.toFixed(2),
          n(r.import.daysPerS),
          n(r.import.cellsPerS),
          n(r.import.peakMB),
          n(r.import.heapPeakMB),
          r.again.s.toFixed(3),
          r.again.firstS.toFixed(3),
          r.again.sha256S.toFixed(3),
        ],
        w2,
      ),
    );
  }
}

export async function run(): Promise<void> {
  const results: Figures[] = [];
  for (const { source, make, label } of EXPORTS.filter((e) => !ONLY || ONLY.includes(e.source))) {
    const figures = await measure(source, label, make);
    console.log(`${label}: made in ${figures.generateS.toFixed(1)} s; read, imported and imported again`);
    results.push(figures);
    gc();
  }
  printTables(results);
  const wanted = EXPORTS.filter((e) => THROUGH_API.includes(e.source) && (!ONLY || ONLY.includes(e.source)));
  const uploads: ApiUpload[] = wanted.length > 0 ? await uploadThroughApi(wanted, TIME_ZONE) : [];
  if (uploads.length > 0) {
    console.log("\nthrough the API (POST /api/v1/sites/{id}/imports on a `wren start` stack), one request each");
    for (const u of uploads) {
      console.log(
        `${u.label.padEnd(28)}  ${u.fileMB.toFixed(1)} MB  ${u.status}  ${u.s.toFixed(2)} s  ${u.daysImported} days  api workerd peak +${n(u.apiPeakMB)} MB` +
          (u.failure ? `\n  FAILED: ${u.failure}` : ""),
      );
    }
  }
  printJson({
    bench: "imports",
    results: results.map((r) => ({
      source: r.source,
      file_mb: round(r.fileMB),
      csv_mb: round(r.csvMB),
      rows: r.rows,
      days: r.days,
      cells: r.cells,
      read_s: round(r.read.s, 2),
      read_rows_per_s: Math.round(r.read.rowsPerS),
      read_csv_mb_per_s: round(r.read.csvMBPerS),
      read_peak_mb: Math.round(r.read.peakMB),
      import_s: round(r.import.s, 2),
      import_days_per_s: Math.round(r.import.daysPerS),
      import_cells_per_s: Math.round(r.import.cellsPerS),
      import_peak_mb: Math.round(r.import.peakMB),
      import_heap_peak_mb: Math.round(r.import.heapPeakMB),
      again_s: round(r.again.s, 3),
      again_first_s: round(r.again.firstS, 3),
      sha256_s: round(r.again.sha256S, 3),
    })),
    api: uploads.map((u) => ({
      source: u.source,
      file_mb: round(u.fileMB),
      status: u.status,
      s: round(u.s, 2),
      api_peak_mb: Math.round(u.apiPeakMB),
    })),
  });
  // After the figures: an upload the service could not take is a bug to see, not a figure.
  const failed = uploads.filter((u) => u.failure);
  if (failed.length > 0) throw new Error(`uploads through the API failed: ${failed.map((u) => u.label).join(", ")}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
