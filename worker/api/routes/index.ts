import type { Route } from "../registry";
import { eventRoutes } from "./events";
import { goalRoutes } from "./goals";
import { keyRoutes } from "./keys";
import { reportRoutes } from "./reports";
import { sessionRoutes } from "./sessions";
import { siteRoutes } from "./sites";

/** Every /api/v1 route, in the order they are matched. */
export const apiRoutes: Route[] = [...keyRoutes, ...siteRoutes, ...goalRoutes, ...sessionRoutes, ...eventRoutes, ...reportRoutes];
