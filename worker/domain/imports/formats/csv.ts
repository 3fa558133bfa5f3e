/**
 * A CSV file of an export, read whole: its header and its rows with their line numbers, and the
 * checks every format makes (a column by name, a count, a date). csv-parse's browser build: its
 * Node build needs Node's Buffer, which the api worker may not have.
 */
import { parse } from "csv-parse/browser/esm/sync";
import { MalformedImport } from "../model";

/** One row: its 1-based line (where it starts) and its fields. */
export interface CsvRow {
  line: number;
  fields: string[];
}

export interface CsvFile {
  file: string;
  /** Column names, trimmed (a byte order mark is dropped). */
  header: string[];
  rows: CsvRow[];
}

const CSV_REASONS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: "a quoted field is not closed",
  CSV_INVALID_CLOSING_QUOTE: "a quote inside a field is not doubled",
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: "text follows a closing quote",
};

/** Parses `bytes` as UTF-8 CSV; a broken quote or a row of the wrong width is MalformedImport at its line. */
export function readCsv(file: string, bytes: Uint8Array): CsvFile {
  return readCsvText(file, new TextDecoder("utf-8").decode(bytes));
}

export function readCsvText(file: string, text: string, chunkChars = CHUNK_CHARS): CsvFile {
  const rows: CsvRow[] = [];
  let header: string[] | undefined;
  // Lines before the chunk being parsed: csv-parse counts from 1 in each.
  let linesBefore = 0;
  for (const chunk of chunksOf(text, chunkChars)) {
    for (const { record, info } of parseChunk(file, chunk, linesBefore)) {
      // info.lines is where the record ends: a quoted field may span lines.
      const line = linesBefore + info.lines - newlines(record);
      if (header === undefined) header = record.map((name) => name.trim());
      else if (record.length !== header.length) {
        throw new MalformedImport(file, line, `expected as many fields as the header has, found ${record.length}`);
      } else rows.push({ line, fields: record });
    }
    linesBefore += lineCount(chunk);
  }
  if (header === undefined) throw new MalformedImport(file, 1, "the file is empty (a header line is required)");
  return { file, header, rows };
}

/**
 * Why chunks: csv-parse's browser build turns its whole input into one array of bytes, which V8
 * will not grow past about 112 MB of text; an event export of a busy site is larger. So the text
 * is parsed in pieces of about CHUNK_CHARS, each ending at a line break outside any quoted field
 * (an even number of quotes since the piece began: a quote inside a field is doubled).
 */
const CHUNK_CHARS = 16 * 1024 * 1024;

function* chunksOf(text: string, chunkChars: number): Generator<string> {
  let start = 0;
  while (text.length - start > chunkChars) {
    const end = recordEnd(text, start, start + chunkChars);
    if (end === null) break;
    yield text.slice(start, end);
    start = end;
  }
  yield start === 0 ? text : text.slice(start);
}

/** The index just past the first line break at or after `from` that lies outside quotes (counted from `start`), or null. */
function recordEnd(text: string, start: number, from: number): number | null {
  let quotes = 0;
  for (let i = text.indexOf('"', start); i !== -1 && i < from; i = text.indexOf('"', i + 1)) quotes++;
  for (let i = from; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 34) quotes++;
    else if (ch === 10 && quotes % 2 === 0) return i + 1;
  }
  return null;
}

/** One piece's records; an error names its line in the whole file. */
function parseChunk(file: string, chunk: string, linesBefore: number): { record: string[]; info: { lines: number } }[] {
  try {
    return parse(chunk, {
      bom: linesBefore === 0,
      info: true,
      skip_empty_lines: true,
      // Every piece after the first is the same table: as wide as its first record, checked below.
      relax_column_count: linesBefore > 0,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    const { code, lines, record } = error as { code?: string; lines?: number; record?: string[] };
    const reason =
      code === "CSV_RECORD_INCONSISTENT_FIELDS_LENGTH" && record
        ? `expected as many fields as the header has, found ${record.length}`
        : (CSV_REASONS[code ?? ""] ?? "not a CSV file");
    // Where the record starts, as for the rows read (csv-parse names the line it ends on).
    throw new MalformedImport(file, linesBefore + (lines ?? 1) - (record ? newlines(record) : 0), reason);
  }
}

function lineCount(text: string): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

function newlines(fields: string[]): number {
  let count = 0;
  for (const field of fields) for (const ch of field) if (ch === "\n") count++;
  return count;
}

/** A file's columns by name: required ones checked at line 1, others read when present. */
export class Columns {
  private readonly index = new Map<string, number>();

  constructor(
    readonly file: string,
    header: string[],
    required: readonly string[],
  ) {
    header.forEach((name, i) => {
      if (!this.index.has(name)) this.index.set(name, i);
    });
    const missing = required.filter((name) => !this.index.has(name));
    if (missing.length > 0) {
      throw new MalformedImport(file, 1, `the header lacks the column${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`);
    }
  }

  has(name: string): boolean {
    return this.index.has(name);
  }

  /** The field (trimmed), or "" when the column is absent. */
  text(row: CsvRow, name: string): string {
    const i = this.index.get(name);
    return i === undefined ? "" : (row.fields[i] ?? "").trim();
  }

  /** A count: a non-negative integer; 0 when the column is absent (older exports lack some). */
  count(row: CsvRow, name: string): number {
    if (!this.index.has(name)) return 0;
    const value = this.text(row, name);
    if (!/^\d{1,15}$/.test(value)) {
      throw new MalformedImport(this.file, row.line, `${name}: "${shown(value)}" is not a non-negative integer`);
    }
    return Number(value);
  }

  /** A calendar date, YYYY-MM-DD. */
  date(row: CsvRow, name: string): string {
    const value = this.text(row, name);
    if (!isDate(value)) throw new MalformedImport(this.file, row.line, `${name}: "${shown(value)}" is not a date (YYYY-MM-DD)`);
    return value;
  }
}

/** A real calendar date in the form YYYY-MM-DD (2024-02-30 is not). */
export function isDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  return Number.isFinite(time) && new Date(time).toISOString().startsWith(value);
}

/** A field as a refusal quotes it: short, so a reason stays one line. */
export function shown(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}
