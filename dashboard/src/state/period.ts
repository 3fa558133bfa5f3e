/**
 * The report period, shared by every report screen and kept in the URL (?period=7d, or
 * ?period=custom&from=…&to=…). Hourly periods (today, 24 h) exist only where the API reports
 * closed hours: the timeseries, the conversions and the Overview; pages and breakdowns also read
 * today (never the last 24 hours); the other whole-day reports take days.
 */
import { computed } from "@preact/signals";
import { query } from "./location";

export type PeriodName = "today" | "24h" | "day" | "7d" | "30d" | "custom";

export const PERIODS: readonly { name: PeriodName; label: string; hourly: boolean }[] = [
  { name: "today", label: "Today", hourly: true },
  { name: "24h", label: "24 hours", hourly: true },
  { name: "day", label: "Yesterday", hourly: false },
  { name: "7d", label: "7 days", hourly: false },
  { name: "30d", label: "30 days", hourly: false },
  { name: "custom", label: "Custom", hourly: false },
];

export const DEFAULT_PERIOD: PeriodName = "7d";

export interface Period {
  name: PeriodName;
  from?: string;
  to?: string;
}

export const period = computed<Period>(() => {
  const name = query.value.get("period");
  const known = PERIODS.find((p) => p.name === name)?.name ?? DEFAULT_PERIOD;
  if (known !== "custom") return { name: known };
  return { name: known, from: query.value.get("from") ?? undefined, to: query.value.get("to") ?? undefined };
});

export function isHourly(p: Period): boolean {
  return p.name === "today" || p.name === "24h";
}

/** The report query parameters for a period: `period`, or `from` and `to` for a custom range. */
export function periodParams(p: Period): { period?: "today" | "24h" | "day" | "7d" | "30d"; from?: string; to?: string } {
  if (p.name === "custom") return p.from && p.to ? { from: p.from, to: p.to } : { period: "7d" };
  return { period: p.name };
}

/** Whole-day reports cannot read hours: an hourly period reads yesterday there instead. */
export function dayPeriodParams(p: Period): { period?: "day" | "7d" | "30d"; from?: string; to?: string } {
  if (p.name === "today" || p.name === "24h") return { period: "day" };
  if (p.name === "custom") return p.from && p.to ? { from: p.from, to: p.to } : { period: "7d" };
  return { period: p.name };
}

/**
 * Pages and breakdowns read today's closed hours but no rolling 24 hours (docs/reports.md,
 * Today): `today` as it is, `24h` as yesterday, anything else as whole days.
 */
export function todayPeriodParams(p: Period): { period?: "today" | "day" | "7d" | "30d"; from?: string; to?: string } {
  return p.name === "today" ? { period: "today" } : dayPeriodParams(p);
}
