/**
 * Why a figure is hidden, in one plain sentence per reason: the words of every tooltip, table
 * cell and chart legend that shows a suppressed figure. The timeseries names its reason
 * (`points[].hidden`, docs/reports.md "Figures"); a figure without one gets the general sentence.
 */
import type { components } from "../api/openapi";

/** The reasons the API names, as its document types them. */
export type HiddenReason = NonNullable<components["schemas"]["TimeseriesReport"]["points"][number]["hidden"]>;

/** Every reason, in the order the docs list them (checked against the API's type). */
export const HIDDEN_REASONS = ["quiet_hours", "small_group", "day_protection"] as const satisfies readonly HiddenReason[];

/** The tooltip of a hidden figure: why it is hidden, for this reason (or in general). */
export function hiddenReason(k: number, reason?: string): string {
  switch (reason) {
    case "quiet_hours":
      return `The day has not yet had ${k} sessions in one hour, so quiet hours are not told apart from empty ones.`;
    case "small_group":
      return `Fewer than ${k} sessions.`;
    case "day_protection":
      return `Hidden so that the day's total cannot be subtracted down to a few people.`;
    default:
      return `Hidden: fewer than ${k} sessions, or hiding it keeps a small group from being worked out from the figures shown.`;
  }
}

/** The short words a chart's legend shows for a gap: "< 5: quiet hours". */
export function hiddenLabel(k: number, reason?: string): string {
  switch (reason) {
    case "quiet_hours":
      return `< ${k}: quiet hours`;
    case "small_group":
      return `< ${k}: small group`;
    case "day_protection":
      return `< ${k}: protects the day`;
    default:
      return `< ${k}`;
  }
}
