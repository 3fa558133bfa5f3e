/**
 * The dimensions a report can be broken down and filtered by (docs/reports.md, "Breakdowns").
 * Each is one value per session and local day — of its first pageview that day, or for
 * `exit_page` of its last — so a dimension partitions the day's visitors. The name is also the
 * column in `events` (collector/dimensions) and `rollup_session_day` that holds it. A filter's
 * value is read here in the spelling the collector stores (`filterValue`).
 */
import sources from "../lib/sources.json" with { type: "json" };
import { DIRECT } from "../lib/sources";
import type { Device } from "../collector/dimensions/user-agent";

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

/** The devices the collector tells apart, in its spelling: the compiler holds the list to its `Device`, both ways. */
const DEVICE_NAMES = { desktop: true, mobile: true, tablet: true } satisfies Record<Device, true>;
export const DEVICES = Object.keys(DEVICE_NAMES) as Device[];

/** Every source name the collector gives a referrer, by its lower-case spelling. */
const SOURCE_NAMES = new Map(
  [DIRECT, ...Object.keys(sources.hosts), ...Object.values(sources.brands)].map((name) => [name.toLowerCase(), name]),
);

/**
 * A filter's value as the collector stores it, or why there is none: where the value space is
 * fixed, case is not part of the value (`country:de` is `DE`, `device:Mobile` is `mobile`,
 * `source:google` is `Google`, `source:News.Example.COM` the host `news.example.com`), and a
 * value outside it is refused rather than answered with an exact 0. Campaign parameters and
 * paths are the site's own text, and browser and OS names as the breakdown lists them: exact.
 */
export function filterValue(dimension: Dimension, value: string): { value: string } | { error: string } {
  switch (dimension) {
    case "country":
      return /^[A-Za-z]{2}$/.test(value)
        ? { value: value.toUpperCase() }
        : { error: "country: must be an ISO 3166-1 alpha-2 code (country:DE)" };
    case "device": {
      const device = DEVICES.find((d) => d === value.toLowerCase());
      return device ? { value: device } : { error: `device: must be one of ${DEVICES.join(", ")}` };
    }
    case "source":
      // A known source's name, else a referrer host, which the collector stores in lower case
      // (a dotless intranet host spelt like a known name, `google`, reads as that source).
      return { value: SOURCE_NAMES.get(value.toLowerCase()) ?? value.toLowerCase() };
    default:
      return { value };
  }
}
