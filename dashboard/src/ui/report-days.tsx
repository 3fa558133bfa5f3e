/**
 * Whole-day reports (pages, vitals, funnels) take no hourly period: today and the last 24 hours
 * are a 400 there. When one is picked they read yesterday instead and say so in one line.
 */
import { linkTo } from "../state/location";
import { isHourly, period } from "../state/period";

export function WholeDayNote({ what, site }: { what: string; site: string }) {
  if (!isHourly(period.value)) return null;
  return (
    <p class="report-note" role="note">
      {what} are reported by whole days: showing yesterday. Today's closed hours are on the{" "}
      <a href={linkTo(`/s/${encodeURIComponent(site)}/overview`)}>Overview</a>.
    </p>
  );
}
