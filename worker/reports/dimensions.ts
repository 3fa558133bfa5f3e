/**
 * The dimensions a report can be broken down and filtered by (docs/reports.md, "Breakdowns").
 * Each is one value per session and local day — of its first pageview that day, or for
 * `exit_page` of its last — so a dimension partitions the day's visitors. The name is also the
 * column in `events` (collector/dimensions) and `rollup_session_day` that holds it.
 */
export const DIMENSIONS = [
  "source",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_content",
  "utm_term",
  "entry_page",
  "exit_page",
  "browser",
  "os",
  "device",
  "country",
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Dimensions taken from a session-day's first pageview (all but the exit page). */
export const ENTRY_DIMENSIONS = DIMENSIONS.filter((d) => d !== "exit_page");

/** Dimensions a pageview row carries itself (the pages come from its path): the `events` columns. */
export const PAGEVIEW_DIMENSIONS = DIMENSIONS.filter(
  (d): d is Exclude<Dimension, "entry_page" | "exit_page"> => d !== "entry_page" && d !== "exit_page",
);

export const isDimension = (name: string): name is Dimension => (DIMENSIONS as readonly string[]).includes(name);
