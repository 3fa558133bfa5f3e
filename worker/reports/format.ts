/**
 * Output formats of the reports: JSON (the default), CSV (`Accept: text/csv`) and
 * newline-delimited JSON (`Accept: application/x-ndjson`), for warehouse pulls. CSV and
 * NDJSON carry one line per row, every line naming the site and period; a figure keeps its
 * qualifier in every format (CSV: a `<name>_qualifier` column beside `<name>`). CSV text that
 * a spreadsheet would read as a formula is escaped (`csvCell`).
 */
import type { Figure } from "./figures";

export type Format = "json" | "csv" | "ndjson";

const TYPES: Record<string, Format> = {
  "application/json": "json",
  "application/*": "json",
  "*/*": "json",
  "text/csv": "csv",
  "text/*": "csv",
  "application/x-ndjson": "ndjson",
  "application/ndjson": "ndjson",
  "application/jsonl": "ndjson",
};

/** The format an Accept header prefers (q-values honoured); JSON when it names none we have. */
export function negotiate(accept: string | null): Format {
  if (!accept) return "json";
  const ranges = accept
    .split(",")
    .map((part, position) => {
      const [type = "", ...params] = part.split(";").map((s) => s.trim().toLowerCase());
      const q = params.find((p) => p.startsWith("q="));
      return { type, q: q ? Number(q.slice(2)) : 1, position };
    })
    .filter((r) => r.q > 0 && r.type in TYPES)
    .sort((a, b) => b.q - a.q || a.position - b.position);
  return ranges[0] ? TYPES[ranges[0].type]! : "json";
}

function isFigure(value: unknown): value is Figure {
  return typeof value === "object" && value !== null && "qualifier" in value && "value" in value;
}

/** One flat record per row: figures become `name` and `name_qualifier`, objects `name_key`. */
export function flatten(row: Record<string, unknown>, prefix = ""): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const [key, value] of Object.entries(row)) {
    const name = prefix + key;
    if (isFigure(value)) {
      out[name] = value.value;
      out[`${name}_qualifier`] = value.qualifier;
      // Today's bands (reports/today.ts): the upper end beside the lower.
      if ("high" in value) out[`${name}_high`] = (value as { high: number }).high;
      // A compared figure (compare.ts): its earlier side and the change beside it.
      if ("previous" in value && "delta" in value) {
        const { previous, delta } = value as unknown as {
          previous: Figure;
          delta: { absolute: Figure; relative: Figure | null };
        };
        out[`${name}_previous`] = previous.value;
        out[`${name}_previous_qualifier`] = previous.qualifier;
        out[`${name}_delta`] = delta.absolute.value;
        out[`${name}_delta_qualifier`] = delta.absolute.qualifier;
        out[`${name}_delta_relative`] = delta.relative?.value ?? null;
        out[`${name}_delta_relative_qualifier`] = delta.relative?.qualifier ?? null;
      }
    } else if (typeof value === "object" && value !== null) {
      Object.assign(out, flatten(value as Record<string, unknown>, `${name}_`));
    } else {
      out[name] = value === undefined ? null : (value as string | number | null);
    }
  }
  return out;
}

/** How a spreadsheet recognises a formula (OWASP, "CSV Injection"): =, +, -, @, tab, CR. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One RFC 4180 field. Text cells carry names anyone with `write:goals` chose, and whoever opens
 * the export in a spreadsheet must not run them as formulas (`=HYPERLINK(…)`), so text that
 * starts like one gets a leading `'` (shown as text). Numbers are figures: `-3` stays `-3`.
 */
export function csvCell(value: string | number | null): string {
  if (value === null) return "";
  const text = typeof value === "string" && FORMULA_START.test(value) ? `'${value}` : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(rows: Record<string, unknown>[], columns: string[]): string {
  const lines = [columns.join(",")];
  for (const row of rows) {
    const flat = flatten(row);
    lines.push(columns.map((c) => csvCell(flat[c] ?? null)).join(","));
  }
  return lines.join("\r\n") + "\r\n";
}

export function toNdjson(rows: Record<string, unknown>[]): string {
  return rows.map((row) => JSON.stringify(row) + "\n").join("");
}

/** CSV or NDJSON of `rows`, with the reply's other headers (never cached). */
export function renderAlternate(
  format: Exclude<Format, "json">,
  rows: Record<string, unknown>[],
  columns: string[],
  headers: Record<string, string>,
): Response {
  const common = { ...headers, "cache-control": "no-store" };
  if (format === "csv") {
    return new Response(toCsv(rows, columns), {
      headers: { ...common, "content-type": "text/csv; charset=utf-8; header=present" },
    });
  }
  return new Response(toNdjson(rows), { headers: { ...common, "content-type": "application/x-ndjson" } });
}
