/**
 * What a report says about imported days, in words (docs/dashboard.md, "Imported data"): from the
 * report's own `imported` field, "Includes imported data from Plausible (1 Jan – 11 Feb 2025)",
 * or why they are left out ("Imported days are left out while a filter is applied"); and which
 * timeseries points are imported, for the chart's shading (importedSpans).
 */
// The generated types alone (not the client): tests import this file outside a browser.
import type { components } from "../api/openapi";

export type ImportedDays = components["schemas"]["ImportedDays"];
type Reason = NonNullable<ImportedDays["reason"]>;

const TOOLS: Record<ImportedDays["sources"][number], string> = {
  plausible: "Plausible",
  umami: "Umami",
  goatcounter: "GoatCounter",
};

const dayMonth = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", timeZone: "UTC" });
const dayMonthYear = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const at = (date: string) => new Date(`${date}T12:00:00Z`);

/** "1 Jan – 11 Feb 2025", "1 Dec 2024 – 11 Feb 2025", "3 Mar 2025". */
export function dayRange(from: string, to: string): string {
  if (from === to) return dayMonthYear.format(at(from));
  const start = from.slice(0, 4) === to.slice(0, 4) ? dayMonth.format(at(from)) : dayMonthYear.format(at(from));
  return `${start} – ${dayMonthYear.format(at(to))}`;
}

/** Why the figures leave imported days out, for each reason a report gives. */
const LEFT_OUT: Record<Reason, (origin: string) => string> = {
  filters: () => "Imported days are left out while a filter is applied.",
  goal: () => "Imported days are left out of a goal's figures.",
  interval: () => "Imported days are left out of hourly figures.",
  report: (origin) => `This report does not include the imported data from ${origin}.`,
};

/** The sentence for a report's imported days; `leftOut` overrides the report's own reason (a screen's filter). */
export function importedText(imported: ImportedDays, leftOut?: Reason): string {
  const tools = imported.sources.map((s) => TOOLS[s]);
  const origin = `${tools.length > 0 ? tools.join(" and ") : "another tool"} (${dayRange(imported.from, imported.to)})`;
  if (imported.days === 0) return "Imported days of this period also have collected data: they read as collected.";
  const reason = leftOut ?? (imported.included ? undefined : (imported.reason ?? "report"));
  return reason === undefined ? `Includes imported data from ${origin}.` : LEFT_OUT[reason](origin);
}

/** Runs of consecutive imported points, as [first index, last index]. */
export function importedSpans(points: readonly { imported?: true }[]): [number, number][] {
  const spans: [number, number][] = [];
  points.forEach((p, i) => {
    if (!p.imported) return;
    const last = spans.at(-1);
    if (last && last[1] === i - 1) last[1] = i;
    else spans.push([i, i]);
  });
  return spans;
}
