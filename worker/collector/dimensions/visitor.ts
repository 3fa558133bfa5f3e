/**
 * A pageview's dimensions, derived once per beacon: its source (the referrer grouped), the
 * landing page's UTM parameters as the tracker sent them, browser, system and device from the
 * User-Agent and Client Hints, and the country of the client's address. Only these coarse
 * values are stored; the User-Agent and the address are not (docs/collector.md).
 */
import type { PageviewDimensions } from "../rows";
import type { BeaconEvent } from "../schemas";
import { clientAddress } from "./client-address";
import { countryOf } from "./country";
import { sourceOf, utmValue } from "../../lib/sources";
import { deviceDimensions } from "./user-agent";

type Pageview = Extract<BeaconEvent, { type: "pageview" }>;

/** What a beacon's request says of its visitor: the same for each of its pageviews. */
export interface VisitorDimensions {
  browser: string | null;
  os: string | null;
  device: string | null;
  country: string | null;
}

export function visitorDimensions(request: Request, clientIpHeader: string | null | undefined): VisitorDimensions {
  return { ...deviceDimensions(request.headers), country: countryOf(clientAddress(request, clientIpHeader ?? undefined)) };
}

export function pageviewDimensions(event: Pageview, referrerHost: string | null, visitor: VisitorDimensions): PageviewDimensions {
  const utm = event.utm;
  return {
    source: sourceOf(referrerHost),
    utmSource: utmValue(utm?.source),
    utmMedium: utmValue(utm?.medium),
    utmCampaign: utmValue(utm?.campaign),
    utmContent: utmValue(utm?.content),
    utmTerm: utmValue(utm?.term),
    ...visitor,
  };
}
