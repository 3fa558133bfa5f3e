/**
 * Why a figure is hidden, in one plain sentence per reason: the words of every tooltip, table
 * cell and chart legend that shows a suppressed figure. The hourly timeseries names its reason
 * (`points[].hidden`, docs/reports.md "Today"); a figure without one gets the general sentence.
 * Typed here as optional, so the dashboard builds before and after the API carries it.
 */

export const HIDDEN_REASONS = ["small_group", "quiet_hours", "day_protection", "complement"] as const;
export type HiddenReason = (typeof HIDDEN_REASONS)[number];

/** A report row that may name why it is hidden. */
export type WithHidden<T> = T & { hidden?: HiddenReason | undefined };

/** The tooltip of a hidden figure: why it is hidden, for this reason (or in general). */
export function hiddenReason(k: number, reason?: string): string {
  switch (reason) {
    case "small_group":
      return `Fewer than ${k} sessions in this hour.`;
    case "quiet_hours":
      return `The day has not yet had ${k} sessions in one hour, so quiet hours are not told apart from empty ones.`;
    case "day_protection":
      return `Hidden so that the day's total cannot be subtracted down to a few people.`;
    case "complement":
      return `Differs from a shown figure by fewer than ${k} sessions.`;
    default:
      return `Hidden: fewer than ${k} sessions, or hiding it keeps a small group from being worked out from the figures shown.`;
  }
}

/** The short words a chart's legend shows for a gap: "< 5: quiet hours". */
export function hiddenLabel(k: number, reason?: string): string {
  switch (reason) {
    case "small_group":
      return `< ${k}: small group`;
    case "quiet_hours":
      return `< ${k}: quiet hours`;
    case "day_protection":
      return `< ${k}: protects the day`;
    case "complement":
      return `< ${k}: complement`;
    default:
      return `< ${k}`;
  }
}
