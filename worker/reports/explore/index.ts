/** The filter engine (docs/reports.md "Filters"): what report routes use of it. */
export { filterPlanner, type FilterPlan } from "./plan";
export { filteredBreakdownReport, filteredPagesReport } from "./tables";
export { filteredConversionsReport, filteredTimeseriesReport } from "./series";
export { filteredFunnelReport } from "./funnels";
export { filteredVitalsReport } from "./vitals";
