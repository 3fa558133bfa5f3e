/**
 * Whole-day reports (vitals, funnels) take no hourly period: today and the last 24 hours are a
 * 400 there. When one is picked they read yesterday instead and say so in one line. (Pages and
 * Sources read today; only the last 24 hours read yesterday there: ui/report-today.tsx.)
 */
import { linkTo } from "../state/location";
import { isHourly, period } from "../state/period";

/** `why`: the reason a report is never read by the hour (docs/reports.md, "Today"), where it has one. */
export function WholeDayNote({ what, site, why }: { what: string; site: string; why?: string }) {
  if (!isHourly(period.value)) return null;
  return (
    <p class="report-note" role="note">
      {what} are reported by whole days{why ? `, since ${why}` : ""}: showing yesterday. Today's closed hours are on the{" "}
      <a href={linkTo(`/s/${encodeURIComponent(site)}/overview`)}>Overview</a>.
    </p>
  );
}

/** Why vitals are never read by the hour. */
export const VITALS_BY_DAY = "a percentile of one hour would rest on a handful of sessions";
/** Why funnels are never read by the hour. */
export const FUNNELS_BY_DAY = "a session's journey goes on after an hour closes, and two hourly readings would show one session moving on";
