/**
 * "No data yet" for the Overview. Report figures cannot say it: sums of hours are estimated
 * lower bounds and small hours are hidden, so a 0 may hide a few visits. The site's
 * verification can: until its first beacon has arrived there is nothing to report.
 */
import { api, unwrap } from "../../api/client";
import { useLoad } from "../../state/load";
import { BASE } from "../../state/location";
import { hasScope } from "../../state/session";
import { shareToken } from "../../state/share";
import { Empty } from "../../ui/states";
import { formatTime } from "../../ui/time";
import type { Arrivals } from "./first-day";

/** false: no beacon has ever arrived; true: one has; null: not known (loading, refused, no read:sites). */
export function useVerified(site: string): boolean | null {
  // A shared link reads reports only: the site's verification is not among them (worker/api/share-auth.ts).
  const canRead = hasScope("read:sites") && !shareToken;
  const load = useLoad(
    () =>
      canRead ? unwrap(api.GET("/api/v1/sites/{id}/verification", { params: { path: { id: site } } })) : Promise.resolve(null),
    [site, canRead],
  );
  return load.status === "ready" && load.data ? load.data.verified : null;
}

export function NoDataYet({ site, arrivals }: { site: string; arrivals: Arrivals | null }) {
  const wizard = `${BASE}/sites/new?site=${encodeURIComponent(site)}&step=snippet`;
  return (
    <Empty>
      <p>
        <strong>No data yet:</strong> no pageview has arrived from this site.
      </p>
      <p>
        {shareToken ? (
          "Figures appear here"
        ) : (
          <>
            <a href={wizard}>Install the snippet and check that it works</a>. Figures appear here
          </>
        )}{" "}
        about 25 seconds after each hour with visits closes
        {arrivals && (
          <>
            : the next hour closes at {formatTime(arrivals.next_figures.hour, arrivals.timezone)} ({arrivals.timezone})
          </>
        )}
        .
      </p>
    </Empty>
  );
}
