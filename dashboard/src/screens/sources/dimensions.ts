/**
 * The breakdown's dimensions as the Sources screen names them, the panels that show them, and
 * the screen's one filter (?filter=dimension:value, as the API takes it).
 */
import type { Schemas } from "../../api/client";
import { query } from "../../state/location";

export type Dimension = Schemas["BreakdownReport"]["dimension"];

export const DIMENSION_LABEL: Readonly<Record<Dimension, string>> = {
  source: "Source",
  utm_source: "UTM source",
  utm_medium: "UTM medium",
  utm_campaign: "UTM campaign",
  utm_content: "UTM content",
  utm_term: "UTM term",
  entry_page: "Entry page",
  exit_page: "Exit page",
  browser: "Browser",
  os: "System",
  device: "Device",
  country: "Country",
};

const DIMENSIONS = Object.keys(DIMENSION_LABEL) as Dimension[];

export interface PanelSpec {
  /** Prefixes the panel's parameters in the URL (?countries_sort=…) and its elements' ids. */
  id: string;
  title: string;
  /** The dimensions the panel can show, the first by default; with several, how they are chosen. */
  dimensions: readonly { dimension: Dimension; label: string; group?: string }[];
  chooser?: "select" | "toggle";
}

export const PANELS: readonly PanelSpec[] = [
  {
    id: "sources",
    title: "Sources",
    chooser: "select",
    dimensions: [
      { dimension: "source", label: "Sources (referrers)" },
      { dimension: "utm_source", label: "UTM source", group: "Campaigns" },
      { dimension: "utm_medium", label: "UTM medium", group: "Campaigns" },
      { dimension: "utm_campaign", label: "UTM campaign", group: "Campaigns" },
      { dimension: "utm_content", label: "UTM content", group: "Campaigns" },
      { dimension: "utm_term", label: "UTM term", group: "Campaigns" },
    ],
  },
  {
    id: "pages",
    title: "Entry and exit pages",
    chooser: "toggle",
    dimensions: [
      { dimension: "entry_page", label: "Entry pages" },
      { dimension: "exit_page", label: "Exit pages" },
    ],
  },
  { id: "devices", title: "Devices", dimensions: [{ dimension: "device", label: "Devices" }] },
  { id: "browsers", title: "Browsers", dimensions: [{ dimension: "browser", label: "Browsers" }] },
  { id: "systems", title: "Systems", dimensions: [{ dimension: "os", label: "Systems" }] },
  { id: "countries", title: "Countries", dimensions: [{ dimension: "country", label: "Countries" }] },
];

export interface Filter {
  dimension: Dimension;
  value: string;
}

/** The filter in the URL: a filter, null for none, or the text when it is no dimension:value. */
export function urlFilter(): Filter | null | { invalid: string } {
  const text = query.value.get("filter");
  if (!text) return null;
  const at = text.indexOf(":");
  const dimension = DIMENSIONS.find((d) => d === text.slice(0, at));
  const value = text.slice(at + 1);
  return at > 0 && dimension && value ? { dimension, value } : { invalid: text };
}

/** The API's `filter` parameter: "country:DE". */
export const filterParam = (filter: Filter) => `${filter.dimension}:${filter.value}`;

/** The filter as the screen writes it: "country: DE". */
export const filterLabel = (filter: Filter) => `${filter.dimension}: ${filter.value}`;

const regions = (() => {
  try {
    return new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
  } catch {
    return null;
  }
})();

/** "DE" → "Germany"; undefined where the browser knows no name (or the code is no region). */
export function countryName(code: string): string | undefined {
  try {
    return regions?.of(code) ?? undefined;
  } catch {
    return undefined; // not a region code: RangeError
  }
}
