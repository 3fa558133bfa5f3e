/**
 * Today on the Pages and Sources screens (docs/dashboard.md, "Today on Pages and Sources"): the
 * line on what today's bands are (their words: ui/band.ts), and what those screens do not read
 * for today or the last 24 hours, and why, in one line each. The reasons are the API's (worker/reports/today.ts and
 * NO_ROLLING_DAY in worker/reports/schemas.ts), shortened: the dashboard imports nothing of the worker.
 */
import { period } from "../state/period";

/** Why pages and breakdowns have no last 24 hours (the API's NO_ROLLING_DAY). */
export const NO_ROLLING_DAY =
  "a rolling 24 hours would cut yesterday's published day anew every hour, and each cut is one more reading of the same people";

/** Why the exit pages have no today (the API's TODAY_NO_EXIT_PAGES). */
export const NO_EXIT_PAGES_TODAY = "a session's exit page is its last page of the day, which is not known while the day runs";

/** Why today's breakdowns take no goal (the API's TODAY_NO_GOAL). */
export const NO_GOAL_TODAY =
  "today's conversions are read by the hour, on Goals & funnels; per source, page or country they are read by whole days";

/** The line under a table of today's bands, for those who do not hover. */
export function BandsHint({ k }: { k: number }) {
  return (
    <p class="hint" data-testid="bands-hint">
      Today so far: each figure is a range of width {k} (such as {2 * k}–{3 * k - 1}), read from counts with noise added, so one
      visitor more or less cannot be read from it. It grows as each hour closes.
    </p>
  );
}

/** With *24 hours* picked: the screen reads yesterday, and says why in one line. */
export function RollingDayNote({ what }: { what: string }) {
  if (period.value.name !== "24h") return null;
  return (
    <p class="report-note" role="note">
      {what} are not read over the last 24 hours, since {NO_ROLLING_DAY}: showing yesterday. Pick Today for today's closed hours.
    </p>
  );
}
