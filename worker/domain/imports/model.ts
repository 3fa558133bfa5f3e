/**
 * What an import is made of, whatever the tool it came from: a format's reader
 * (imports/formats/) turns a file into days of counts, and the runner (imports/run.ts) writes
 * them. Only counts travel: no session id, address or user agent leaves a reader.
 */
import type { Dimension } from "../../reports/dimensions";

/** The tools whose exports Wren reads. */
export const IMPORT_SOURCES = ["plausible", "umami", "goatcounter"] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

/**
 * The reports an imported day fills, named as the API names them: `page` for the pages report,
 * the others are `GET /api/v1/breakdown`'s dimensions (reports/dimensions.ts, which `satisfies`
 * ties them to), in the order a day's cells are listed.
 */
export const IMPORTED_DIMENSIONS = [
  "page",
  "entry_page",
  "exit_page",
  "source",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_content",
  "utm_term",
  "country",
  "device",
  "browser",
  "os",
] as const satisfies readonly ("page" | Dimension)[];
export type ImportedDimension = (typeof IMPORTED_DIMENSIONS)[number];

/** A day's site totals. `visitDuration` is the visits' summed duration in seconds. */
export interface ImportedTotals {
  visitors: number;
  pageviews: number;
  visits: number;
  bounces: number;
  visitDuration: number;
}

/** One row of one report on one day. */
export interface ImportedCell {
  dimension: ImportedDimension;
  value: string;
  visitors: number;
  pageviews: number;
}

/**
 * The rows of a file a day was read from: how many, and the first (file and line), so a day
 * the runner refuses (docs/imports.md "Overlap") is reported as rows refused, like any other.
 */
export interface DayOrigin {
  rows: number;
  first: { file: string; line: number };
}

/** One local day (YYYY-MM-DD) of an export. */
export interface ImportedDay {
  day: string;
  totals: ImportedTotals;
  cells: ImportedCell[];
  /** Set by the readers (formats/); absent on a day made by hand. */
  origin?: DayOrigin;
}

/** A row the reader read and left out, and why (a bot, a day with collected data, …). */
export interface RefusedRow {
  file: string;
  /** 1-based line of the file (the header is line 1). */
  line: number;
  reason: string;
}

/** A file read whole: its days in order, and what it left out. */
export interface ParsedImport {
  source: ImportSource;
  days: ImportedDay[];
  rowsRead: number;
  refused: RefusedRow[];
}

/**
 * A file that is not what its format says (a missing column, a count that is no number, a
 * broken quote): refused whole, naming the file and line, and nothing is written.
 */
export class MalformedImport extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
  ) {
    super(`${file}, line ${line}: ${reason}`);
    this.name = "MalformedImport";
  }
}
