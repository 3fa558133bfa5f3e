/**
 * The site's k (WREN_K_ANONYMITY): what an alert threshold must reach and what a suppressed
 * figure is "< k" of. No alert answer carries it, the reports do, so a key that reads reports
 * asks the smallest one (yesterday's timeseries); any other key gets null and the screens say "k".
 */
import { api, unwrap } from "../../api/client";
import { useLoad } from "../../state/load";
import { hasScope } from "../../state/session";

export function useSiteK(site: string): number | null {
  const load = useLoad(
    () =>
      hasScope("read:reports")
        ? unwrap(api.GET("/api/v1/timeseries", { params: { query: { site, period: "day" } } })).then((r) => r.k)
        : Promise.resolve(null),
    [site],
  );
  return load.status === "ready" ? load.data : null;
}
