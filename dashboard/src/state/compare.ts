/**
 * The comparison shared by the report screens, kept in the URL (?compare=previous|year) beside
 * the period: the API's `compare` parameter (docs/reports.md, Comparisons). Periods of closed
 * hours (today, 24 h) are never compared — the API refuses them; the Overview's cards compare
 * those hours with the ones before a deployment instead.
 */
import { computed } from "@preact/signals";
import { query } from "./location";
import { isHourly, type Period } from "./period";

export type CompareMode = "previous" | "year";

export const COMPARE_CHOICES: readonly { name: CompareMode | null; label: string }[] = [
  { name: null, label: "Off" },
  { name: "previous", label: "Previous period" },
  { name: "year", label: "A year earlier" },
];

export const compareMode = computed<CompareMode | null>(() => {
  const value = query.value.get("compare");
  return value === "previous" || value === "year" ? value : null;
});

/** The `compare` parameter for a report of this period: none when off or when the period is hourly. */
export function compareParams(p: Period, mode: CompareMode | null = compareMode.value): { compare?: CompareMode } {
  return mode && !isHourly(p) ? { compare: mode } : {};
}
