/**
 * How a report answers: one sorted page of rows, and the reply in the negotiated format.
 * JSON is the typed body the route declares (the route's `reply` checks it); CSV and NDJSON
 * carry one line per row, each starting with the head columns (site, from, to, timezone). In
 * every format a paginated report names its next page in a `Link: rel="next"` header, and
 * `Wren-Published-Through` names the last published day.
 */
import type { Format } from "./format";
import { renderAlternate } from "./format";
import { paginate, type Cursor, type Page, type SortValue } from "./list";
import type { PreparedReport } from "./request";

/** What a report answers with besides JSON, chosen by `Accept`. */
export const REPORT_FORMATS = ["text/csv", "application/x-ndjson"];

export const FORMATS_NOTE =
  " Send `Accept: text/csv` or `Accept: application/x-ndjson` for one line per row (CSV: each figure as `name` and `name_qualifier` columns).";

/** JSON page size when the query gives none; CSV and NDJSON return every row unless asked. */
const DEFAULT_JSON_LIMIT = 100;

const HEAD_COLUMNS = ["site", "from", "to", "timezone"];

/** CSV columns of figures: each as its value and its qualifier. */
export const figureColumns = (...names: string[]): string[] => names.flatMap((n) => [n, `${n}_qualifier`]);

/**
 * The same for compared figures (`compare`, compare.ts): each also as its earlier value, the
 * change and the relative change, each with its qualifier.
 */
export const comparedColumns = (...names: string[]): string[] =>
  names.flatMap((n) => [
    n,
    `${n}_qualifier`,
    ...["previous", "delta", "delta_relative"].flatMap((s) => [`${n}_${s}`, `${n}_${s}_qualifier`]),
  ]);

/** figureColumns, or comparedColumns when the report is compared. */
export const reportColumns = (compared: boolean, ...names: string[]): string[] =>
  compared ? comparedColumns(...names) : figureColumns(...names);

/** The same for bands (period=today): each also with its upper end. */
export const bandColumns = (...names: string[]): string[] => names.flatMap((n) => [n, `${n}_high`, `${n}_qualifier`]);

function pageLimit(format: Format, limit: number | undefined): number | undefined {
  return limit ?? (format === "json" ? DEFAULT_JSON_LIMIT : undefined);
}

export interface PageQuery {
  order?: "asc" | "desc" | undefined;
  limit?: number | undefined;
  cursor?: Cursor | undefined;
}

/** One page of rows in the query's order; names sort ascending by default, figures descending. */
export function sortedPage<R>(
  rows: R[],
  report: PreparedReport,
  query: PageQuery,
  sortsByName: boolean,
  sortValue: (row: R) => SortValue,
  rowKey: (row: R) => string,
): Page<R> {
  const order = query.order ?? (sortsByName ? "asc" : "desc");
  return paginate(rows, sortValue, rowKey, order, pageLimit(report.format, query.limit), query.cursor);
}

/** The JSON body of a paginated report with totals: its head, this page's rows, the totals and the next cursor. */
export function pagedBody<R, T>(report: PreparedReport, page: Page<R>, totals: T) {
  return { ...report.head, rows: page.rows, totals, next_cursor: page.next_cursor };
}

/** How the reply goes out beside its JSON body: headers, and the CSV or NDJSON rendering. */
export interface ReportFormatting {
  headers: Record<string, string>;
  representation?: Response;
}

/**
 * The reply's formatting: `lines` as CSV or NDJSON when the client asked for one, else the
 * JSON body alone. `nextCursor` is given by paginated reports (null on the last page).
 */
export function inFormat(
  request: Request,
  report: PreparedReport,
  lines: object[],
  columns: string[],
  nextCursor?: string | null,
): ReportFormatting {
  const headers: Record<string, string> = { vary: "Accept", "wren-published-through": report.head.published_through };
  if (nextCursor) {
    const url = new URL(request.url);
    url.searchParams.set("cursor", nextCursor);
    headers.link = `<${url.pathname}${url.search}>; rel="next"`;
  }
  if (report.format === "json") return { headers };
  const { site } = report.head;
  const { from, to, timeZone: timezone } = report.period;
  const rows = lines.map((line) => ({ site, from, to, timezone, ...line }));
  return { headers, representation: renderAlternate(report.format, rows, [...HEAD_COLUMNS, ...columns], headers) };
}
