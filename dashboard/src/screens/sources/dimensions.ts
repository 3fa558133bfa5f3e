/**
 * The breakdown's dimensions as the Sources screen names them, and the panels that show them.
 */
import { filterLabel, type FilterDimension } from "../../state/filter-text";

/** The session dimensions and the custom properties (`prop:NAME`, the Properties panel's). */
export type Dimension = Exclude<FilterDimension, "page" | "goal">;

/** Each dimension as the dashboard names it: the filter chips' names (one list). */
export const dimensionLabel = (dimension: Dimension): string => filterLabel(dimension);

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
