/**
 * The breakdown's dimensions as the Sources screen names them, and the panels that show them.
 */
import type { Schemas } from "../../api/client";

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

export { countryName } from "../../ui/country";
