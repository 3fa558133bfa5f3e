/**
 * The Overview's first-day panel (GET /api/v1/sites/{id}/arrivals): once the first beacon has
 * arrived and for 24 hours after it, what has arrived (a band, in steps of k visitors, never a
 * count that could single anyone out), when this hour's and today's figures appear in the
 * site's zone, and why a figure may be hidden meanwhile. So a new site's empty hours read as
 * "not yet", never as "broken".
 */
import { api, unwrap, type Schemas } from "../../api/client";
import { useLoad } from "../../state/load";
import { formatInstant, formatTime } from "../../ui/time";

export type Arrivals = Schemas["SiteArrivals"];

/** The site's arrivals; null while loading or when refused (the panel is then not drawn). */
export function useArrivals(site: string): Arrivals | null {
  const load = useLoad(() => unwrap(api.GET("/api/v1/sites/{id}/arrivals", { params: { path: { id: site } } })), [site]);
  return load.status === "ready" ? load.data : null;
}

/** "Beacons arrived since 14:02 CET: 10–14 (…)" or "…: from fewer than 5 visitors so far." */
export function arrivedText(arrivals: Arrivals): string {
  const zone = arrivals.timezone;
  const since = arrivals.first_beacon ? formatTime(arrivals.first_beacon, zone) : "";
  const band = arrivals.beacons;
  if (!band || band.qualifier === "suppressed" || band.low === null) {
    return `Beacons arrived since ${since}: from fewer than ${arrivals.k} visitors so far.`;
  }
  const through = arrivals.counted_through ? ` (counted up to ${formatTime(arrivals.counted_through, zone)})` : "";
  return `Beacons arrived since ${since}: ${band.low}–${band.high}${through}.`;
}

/** "This hour's figures appear at 15:00 CET (Europe/Berlin); …" */
export function appearText(arrivals: Arrivals): string {
  const zone = arrivals.timezone;
  return `This hour's figures appear at ${formatTime(arrivals.next_figures.hour, zone)} (${zone}); its pages and sources join today's ranges then; vitals and funnels at ${formatInstant(arrivals.next_figures.day, zone)}, when the day ends.`;
}

export function FirstDayPanel({ arrivals }: { arrivals: Arrivals }) {
  const { k } = arrivals;
  return (
    <section class="first-day" aria-labelledby="first-day-title" data-testid="first-day">
      <h2 id="first-day-title">First day</h2>
      <p>
        The snippet works: the first beacon arrived at{" "}
        {arrivals.first_beacon ? formatInstant(arrivals.first_beacon, arrivals.timezone) : "—"}.
      </p>
      <p data-testid="first-day-arrived">{arrivedText(arrivals)}</p>
      <p data-testid="first-day-appear">{appearText(arrivals)}</p>
      <p class="hint">
        An hour with fewer than {k} visitors shows as “&lt; {k}”; until one hour of the day has had {k}, quiet hours are hidden
        too, so the first visitors’ hours cannot be told from empty ones. The count above moves only with every {k} new visitors,
        for the same reason. Hover over a hidden figure to see why it is hidden.
      </p>
    </section>
  );
}
