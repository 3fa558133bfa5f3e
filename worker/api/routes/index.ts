/** Every /api/v1 route (and the signed /hooks ones), in the order they are matched; the router and the OpenAPI document take them from here. */
import type { Route } from "../registry";
import { aggregateRoutes } from "./aggregate";
import { alertRoutes } from "./alerts";
import { authRoutes } from "./auth";
import { peopleRoutes } from "./people";
import { arrivalRoutes } from "./arrivals";
import { breakdownRoutes } from "./breakdown";
import { deploymentRoutes } from "./deployments";
import { digestRoutes } from "./digests";
import { eventRoutes } from "./events";
import { goalRoutes } from "./goals";
import { importRoutes } from "./imports";
import { keyRoutes } from "./keys";
import { liveRoutes } from "./live";
import { overviewRoutes } from "./overview";
import { propRoutes } from "./props";
import { queryRoutes } from "./query";
import { reportRoutes } from "./reports";
import { sessionRoutes } from "./sessions";
import { shareRoutes } from "./shares";
import { vitalsRoutes } from "./vitals";
import { siteRoutes } from "./sites";
import { oidcRoutes } from "./oidc";

export const apiRoutes: Route[] = [
  ...keyRoutes,
  ...siteRoutes,
  ...arrivalRoutes,
  ...goalRoutes,
  ...propRoutes,
  ...sessionRoutes,
  ...eventRoutes,
  ...reportRoutes,
  ...breakdownRoutes,
  ...queryRoutes,
  ...aggregateRoutes,
  ...vitalsRoutes,
  ...overviewRoutes,
  ...liveRoutes,
  ...deploymentRoutes,
  ...alertRoutes,
  ...digestRoutes,
  ...authRoutes,
  ...peopleRoutes,
  ...oidcRoutes,
  ...shareRoutes,
  ...importRoutes,
];
