/**
 * When a site's next figures arrive: the instants every report head names (`next_figures`) and
 * the first-day screen shows. An hour's cells are published once it has ended and the
 * publisher's grace has passed (publisher.ts); a whole day's once the local day has.
 */
import { lastClosedHourEnd } from "./period";
import { PUBLISH_GRACE_MS } from "./publisher";
import { addDays, HOUR_MS, localDate, startOfLocalDay } from "./timezone";

/** When the next figures are published: the running local hour's, and the running local day's. */
export interface NextFigures {
  /** The end of the running local hour plus the publisher's grace (ISO). */
  hour: string;
  /** The next local midnight plus the grace: today's whole-day reports (ISO). */
  day: string;
}

/** The end of the running local day at `throughMs`: the next local midnight (ms). */
export function runningDayEnd(timeZone: string, throughMs: number): number {
  return startOfLocalDay(timeZone, addDays(localDate(timeZone, throughMs), 1));
}

/** The next publication times after `throughMs` (the publication's instant) in the zone. */
export function nextFigures(timeZone: string, throughMs: number): NextFigures {
  const hourEnd = lastClosedHourEnd(timeZone, throughMs) + HOUR_MS;
  const dayEnd = runningDayEnd(timeZone, throughMs);
  return { hour: new Date(hourEnd + PUBLISH_GRACE_MS).toISOString(), day: new Date(dayEnd + PUBLISH_GRACE_MS).toISOString() };
}
