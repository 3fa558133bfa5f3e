/**
 * Sorting and keyset pagination of report rows. Rows are sorted by one figure or dimension,
 * suppressed (null) values always last, ties broken by a unique row key; a cursor names the
 * last row's (value, key), so the next page starts right after it even if rows came or went.
 */
import type { Figure } from "./figures";

export type SortValue = number | string | null;

export interface Cursor {
  value: SortValue;
  key: string;
}

export function encodeCursor(cursor: Cursor): string {
  const json = JSON.stringify([cursor.value, cursor.key]);
  return btoa(String.fromCharCode(...new TextEncoder().encode(json)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** The cursor in a next_cursor string, or null when it is not one. */
export function decodeCursor(text: string): Cursor | null {
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const parsed: unknown = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
    if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[1] !== "string") return null;
    const value: unknown = parsed[0];
    if (value !== null && typeof value !== "number" && typeof value !== "string") return null;
    return { value, key: parsed[1] };
  } catch {
    return null;
  }
}

/** Compares (value, key) pairs: nulls last whatever the order, then by value, then key ascending. */
function compare(a: Cursor, b: Cursor, order: "asc" | "desc"): number {
  if (a.value !== b.value) {
    if (a.value === null) return 1;
    if (b.value === null) return -1;
    const byValue = a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
    if (byValue !== 0) return order === "asc" ? byValue : -byValue;
  }
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export interface Page<R> {
  rows: R[];
  next_cursor: string | null;
}

/** Sorts all rows and returns the page after `cursor` (or the first), `limit` rows long. */
export function paginate<R>(
  rows: R[],
  sortValue: (row: R) => SortValue,
  rowKey: (row: R) => string,
  order: "asc" | "desc",
  limit: number | undefined,
  cursor?: Cursor,
): Page<R> {
  const keyed = rows.map((row) => ({ row, at: { value: sortValue(row), key: rowKey(row) } }));
  keyed.sort((a, b) => compare(a.at, b.at, order));
  const start = cursor ? keyed.findIndex((r) => compare(r.at, cursor, order) > 0) : 0;
  const rest = start < 0 ? [] : keyed.slice(start);
  const page = limit === undefined ? rest : rest.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page.map((r) => r.row), next_cursor: last && rest.length > page.length ? encodeCursor(last.at) : null };
}

/** The sort value of a figure: its value (null when suppressed). */
export const figureValue = (figure: Figure): SortValue => figure.value;
