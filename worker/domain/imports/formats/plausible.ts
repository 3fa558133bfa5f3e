/**
 * Plausible's CSV export (Settings → Imports & exports): a zip of one CSV per table, named
 * `imported_<table>_<YYYYMMDD>_<YYYYMMDD>.csv` (or without `imported_`), each with a header.
 * Columns are read by name (older exports lack some), unknown ones are ignored. Its dates are
 * the Plausible site's local days and are kept as they are. docs/imports.md has the mapping.
 */
import { unzipSync } from "fflate";
import { MalformedImport, type ImportedDimension, type ParsedImport, type RefusedRow } from "../model";
import { Columns, readCsv, type CsvFile, type CsvRow } from "./csv";
import { DayTable } from "./day-table";
import { browserName, countryCode, deviceName, osName, pagePath, sourceOfName, utmValue } from "./values";

/** A zip bomb's bounds: the export of a large site is tens of megabytes, a dozen files. */
export const MAX_UNZIPPED_BYTES = 1024 * 1024 * 1024;
export const MAX_ZIP_ENTRIES = 100;

const FILE_NAME = /^(?:imported_)?([a-z_]+?)_(\d{8})_(\d{8})\.csv$/;

const TABLES = [
  "visitors",
  "sources",
  "pages",
  "entry_pages",
  "exit_pages",
  "locations",
  "devices",
  "browsers",
  "operating_systems",
  "custom_events",
] as const;
type Table = (typeof TABLES)[number];

export const CUSTOM_EVENTS_LEFT_OUT = "custom events are not imported";
export const NO_TOTALS = "the day has no row in imported_visitors";

/** The zip's CSV files by table (a table may come in several files, one per date range). */
function unzip(fileName: string, bytes: Uint8Array): Map<Table, { name: string; bytes: Uint8Array }[]> {
  let declared = 0;
  let entries = 0;
  let refusal: string | null = null;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter(entry) {
        entries++;
        declared += entry.originalSize;
        if (entries > MAX_ZIP_ENTRIES) refusal ??= `the zip holds more than ${MAX_ZIP_ENTRIES} files`;
        if (declared > MAX_UNZIPPED_BYTES) refusal ??= "the zip unpacks to more than 1 GiB";
        return refusal === null && FILE_NAME.test(baseName(entry.name));
      },
    });
  } catch {
    throw new MalformedImport(fileName, 1, "not a zip file (Plausible's export is the zip it offers for download)");
  }
  if (refusal) throw new MalformedImport(fileName, 1, refusal);
  const tables = new Map<Table, { name: string; bytes: Uint8Array }[]>();
  let unpacked = 0;
  for (const [path, content] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))) {
    // fflate unpacks no more than a member declares (a lie cuts it short), so the declared
    // bound above holds; this counts what was unpacked all the same.
    unpacked += content.length;
    if (unpacked > MAX_UNZIPPED_BYTES) throw new MalformedImport(fileName, 1, "the zip unpacks to more than 1 GiB");
    const name = baseName(path);
    const table = FILE_NAME.exec(name)![1] as Table;
    if (!(TABLES as readonly string[]).includes(table)) continue;
    tables.set(table, [...(tables.get(table) ?? []), { name, bytes: content }]);
  }
  if (!tables.has("visitors")) {
    throw new MalformedImport(fileName, 1, "the zip has no imported_visitors_….csv (the day totals every import needs)");
  }
  return tables;
}

const baseName = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/** How each breakdown table fills cells: the dimension column (or columns) and the reports it feeds. */
interface TableSpec {
  required: string[];
  cells(columns: Columns, row: CsvRow, add: (dimension: ImportedDimension, value: string | null) => void): void;
}

const SPECS: Record<Exclude<Table, "visitors" | "custom_events">, TableSpec> = {
  sources: {
    required: ["date", "source", "visitors"],
    cells(c, row, add) {
      add("source", sourceOfName(c.text(row, "source"), NO_HOSTS));
      for (const utm of ["utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"] as const) {
        add(utm, utmValue(c.text(row, utm)));
      }
    },
  },
  pages: { required: ["date", "page", "visitors"], cells: (c, row, add) => add("page", pagePath(c.text(row, "page"))) },
  entry_pages: {
    required: ["date", "entry_page", "visitors"],
    cells: (c, row, add) => add("entry_page", pagePath(c.text(row, "entry_page"))),
  },
  exit_pages: {
    required: ["date", "exit_page", "visitors"],
    cells: (c, row, add) => add("exit_page", pagePath(c.text(row, "exit_page"))),
  },
  locations: {
    required: ["date", "country", "visitors"],
    cells: (c, row, add) => add("country", countryCode(c.text(row, "country"))),
  },
  devices: { required: ["date", "device", "visitors"], cells: (c, row, add) => add("device", deviceName(c.text(row, "device"))) },
  browsers: {
    required: ["date", "browser", "visitors"],
    cells: (c, row, add) => add("browser", browserName(c.text(row, "browser"), c.text(row, "browser_version") || null)),
  },
  operating_systems: {
    required: ["date", "operating_system", "visitors"],
    cells: (c, row, add) => add("os", osName(c.text(row, "operating_system"), c.text(row, "operating_system_version") || null)),
  },
};

/** Plausible names sources itself: a site's own host never appears among them. */
const NO_HOSTS: ReadonlySet<string> = new Set();

export function readPlausible(fileName: string, bytes: Uint8Array): ParsedImport {
  const tables = unzip(fileName, bytes);
  const days = new DayTable();
  const refused: RefusedRow[] = [];
  let rowsRead = 0;
  const each = (table: Table, required: string[], visit: (columns: Columns, row: CsvRow, csv: CsvFile) => void) => {
    for (const { name, bytes: content } of tables.get(table) ?? []) {
      const csv = readCsv(name, content);
      const columns = new Columns(name, csv.header, required);
      for (const row of csv.rows) {
        rowsRead++;
        visit(columns, row, csv);
      }
    }
  };

  const daysWithTotals = new Set<string>();
  each("visitors", ["date", "visitors", "pageviews", "bounces", "visits", "visit_duration"], (c, row, csv) => {
    const day = c.date(row, "date");
    daysWithTotals.add(day);
    days.row(day, csv.file, row.line);
    days.addTotals(day, {
      visitors: c.count(row, "visitors"),
      pageviews: c.count(row, "pageviews"),
      visits: c.count(row, "visits"),
      bounces: c.count(row, "bounces"),
      visitDuration: c.count(row, "visit_duration"),
    });
  });
  for (const [table, spec] of Object.entries(SPECS) as [keyof typeof SPECS, TableSpec][]) {
    each(table, spec.required, (c, row, csv) => {
      const day = c.date(row, "date");
      const visitors = c.count(row, "visitors");
      const pageviews = c.count(row, "pageviews");
      // A day of cells without its totals would be no day at all: Plausible writes every table
      // from the same days, so only an export cut by hand has one.
      if (!daysWithTotals.has(day)) {
        refused.push({ file: csv.file, line: row.line, reason: NO_TOTALS });
        return;
      }
      days.row(day, csv.file, row.line);
      spec.cells(c, row, (dimension, value) => days.addCell(day, dimension, value, visitors, pageviews));
    });
  }
  each("custom_events", ["date"], (c, row, csv) => {
    c.date(row, "date");
    refused.push({ file: csv.file, line: row.line, reason: CUSTOM_EVENTS_LEFT_OUT });
  });
  return { source: "plausible", days: days.result(), rowsRead, refused };
}
