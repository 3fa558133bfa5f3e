/** The filter engine (docs/reports.md "Filters"): what report routes use of it. */
export { filterContext, filterPlanner, requirePerSessionDays, requirePropPeriod, type FilterPlan } from "./plan";
export { isPropKey, type PropKey } from "./cells";
export { filteredBreakdownReport, filteredPagesReport } from "./tables";
export { filteredConversionsReport, filteredTimeseriesReport } from "./series";
export { filteredFunnelReport } from "./funnels";
export { filteredVitalsReport } from "./vitals";
