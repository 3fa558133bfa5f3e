/**
 * How a report figure is drawn: exact as counted; estimated with "≈"; a band (today's pages and
 * breakdowns) as "10–14"; suppressed as "< k", never as 0 or blank. Each carries a tooltip (and
 * the same words for screen readers) that says why, in the terms of docs/reports.md.
 */
import type { Figure } from "../api/client";
import { BAND_REASON, bandText, isBand } from "./band";
import { hiddenReason } from "./hidden";

export type FigureFormat = "count" | "percent" | "ms" | "seconds" | "decimal" | "duration";

const counts = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
const decimals = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });

export function formatValue(value: number, format: FigureFormat = "count"): string {
  switch (format) {
    case "percent":
      return `${decimals.format(Math.round(value * 1000) / 10)} %`;
    case "ms":
      return `${counts.format(value)} ms`;
    case "seconds":
      return `${decimals.format(value)} s`;
    case "decimal":
      return decimals.format(value);
    case "duration":
      return durationText(value);
    default:
      return counts.format(value);
  }
}

/** "48 s", "2 m 5 s", "1 h 20 m": a time in seconds, to the whole second (minutes and hours written out). */
export function durationText(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} m ${s % 60} s` : `${s / 60} m`;
  const minutes = Math.floor((s % 3600) / 60);
  return minutes ? `${Math.floor(s / 3600)} h ${minutes} m` : `${Math.floor(s / 3600)} h`;
}

/** "40–60 s", "54 s – 1 m 1 s": a range of times in seconds, widened to whole seconds (it never reads narrower than it is). */
export function durationRangeText(low: number, high: number): string {
  const from = Math.floor(low);
  const to = Math.ceil(high);
  return to < 60 ? `${from}–${to} s` : `${durationText(from)} – ${durationText(to)}`;
}

/** Why a suppressed figure is hidden (ui/hidden.ts): the reason's own sentence, or the general one. */
export function suppressedReason(k: number, reason?: string): string {
  return hiddenReason(k, reason);
}

export const ESTIMATED_REASON =
  "Estimated: computed rather than counted (sessions added up over hours or days, a percentile from a histogram, a sum that leaves hidden parts out, or noise added for privacy).";

/** A day read from its hours (the timeseries' `from_hours`). */
export const FROM_HOURS_REASON =
  "The sum of this day's shown hours: its own total is withheld, since a few sessions in its quiet hours would follow from it.";

/** The figure as plain text, as the screen shows it ("< 5", "≈ 12", "6", "10–14"). */
export function figureText(figure: Figure & { high?: number }, k: number, format?: FigureFormat): string {
  if (figure.qualifier === "suppressed" || figure.value === null) return `< ${k}`;
  if (isBand(figure)) return bandText(figure, (n) => formatValue(n, format));
  const text = formatValue(figure.value, format);
  return figure.qualifier === "estimated" ? `≈ ${text}` : text;
}

/**
 * A figure's text as every screen draws it: its qualifier as a class and a data attribute and, for a
 * qualified figure, why as its tooltip and in its accessible name (counts here, money in revenue.tsx).
 */
export function QualifiedText({
  text,
  qualifier,
  why,
  band = false,
}: {
  text: string;
  qualifier: Figure["qualifier"];
  why?: string;
  band?: boolean;
}) {
  const classes = ["figure", qualifier === "exact" ? "" : qualifier, band ? "band" : ""].filter(Boolean).join(" ");
  return (
    <span class={classes} title={why} aria-label={why === undefined ? undefined : `${text}. ${why}`} data-qualifier={qualifier}>
      {text}
    </span>
  );
}

/**
 * `hidden`: why the figure is hidden, where the report names it (ui/hidden.ts); `fromHours`: a day
 * read from its hours; `band`: the tooltip of a band, where the screen knows its period.
 */
export function FigureView({
  figure,
  k,
  format,
  hidden,
  fromHours,
  band,
}: {
  figure: Figure & { high?: number };
  k: number;
  format?: FigureFormat;
  hidden?: string | undefined;
  fromHours?: boolean | undefined;
  band?: string | undefined;
}) {
  const text = figureText(figure, k, format);
  if (figure.qualifier === "suppressed" || figure.value === null) {
    return <QualifiedText text={text} qualifier="suppressed" why={suppressedReason(k, hidden)} />;
  }
  if (isBand(figure)) return <QualifiedText text={text} qualifier="estimated" why={band ?? BAND_REASON} band />;
  if (figure.qualifier === "estimated") {
    return <QualifiedText text={text} qualifier="estimated" why={fromHours ? FROM_HOURS_REASON : ESTIMATED_REASON} />;
  }
  return <QualifiedText text={text} qualifier="exact" />;
}

/**
 * A figure shown only as the range it lies in ("≈ 2.4–3.5 s"), as a percentile or a median is
 * where its own histogram bucket holds fewer than k sessions: `text` the range, `why` the reason.
 */
export function RangeView({ text, why }: { text: string; why: string }) {
  const shown = `≈ ${text}`;
  const title = `${why} ${ESTIMATED_REASON}`;
  return (
    <span class="figure estimated" title={title} aria-label={`${shown}. ${title}`} data-qualifier="estimated">
      {shown}
    </span>
  );
}

export const NO_DATA_REASON = "No data: this time lies before the site was registered, so there is nothing to count (not a hidden figure).";

/** True when a stretch of time ending at `end` (ISO) or ms lies wholly before the site's creation (null: not known). */
export function beforeSite(end: string | number, createdAt: number | null): boolean {
  return createdAt !== null && (typeof end === "number" ? end : Date.parse(end)) <= createdAt;
}

/**
 * True when a figure of time that ended before the site was registered shows nothing (hidden or
 * 0): it is then "no data". A positive figure there (rows stamped earlier, as a backdated
 * conversion) is shown as it is, never hidden behind "no data".
 */
export function noDataBefore(figure: Figure, before: boolean): boolean {
  return before && (figure.qualifier === "suppressed" || figure.value === null || figure.value === 0);
}

/** The figure, or "no data" when it is time before the site that shows nothing (noDataBefore). */
export function SiteFigureView({
  figure,
  k,
  before,
  format,
  hidden,
  fromHours,
}: {
  figure: Figure;
  k: number;
  before: boolean;
  format?: FigureFormat;
  hidden?: string | undefined;
  fromHours?: boolean | undefined;
}) {
  return noDataBefore(figure, before) ? <NoDataView /> : <FigureView figure={figure} k={k} format={format} hidden={hidden} fromHours={fromHours} />;
}

/** "no data": time before the site existed, neither a zero nor a hidden figure. */
export function NoDataView() {
  return (
    <span class="figure no-data" title={NO_DATA_REASON} aria-label={`no data. ${NO_DATA_REASON}`} data-qualifier="no-data">
      no data
    </span>
  );
}

/** A conversion rate written with its denominator: "6 of 8 sessions, 75 %". */
export function RateView({ numerator, denominator, rate, k }: { numerator: Figure; denominator: Figure; rate: Figure; k: number }) {
  return (
    <span class="rate">
      <FigureView figure={numerator} k={k} /> of <FigureView figure={denominator} k={k} /> sessions,{" "}
      <FigureView figure={rate} k={k} format="percent" />
    </span>
  );
}
