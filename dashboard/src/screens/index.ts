/**
 * Every screen, where it lives in the URL, and what it needs. A site's screens are tabs under
 * /s/<site>/; the app shell draws the navigation from this table.
 */
import type { FunctionComponent } from "preact";
import type { Scope } from "../api/client";
import { AlertsScreen } from "./alerts";
import { DeploymentsScreen } from "./deployments";
import { GoalsScreen } from "./goals";
import { OverviewScreen } from "./overview";
import { PagesScreen } from "./pages";
import { SessionsScreen } from "./sessions";
import { VitalsScreen } from "./vitals";

export interface SiteScreen {
  slug: string;
  title: string;
  /** Any one of these scopes opens the screen (admin keys hold all). */
  scopes: readonly Scope[];
  /** Reads the shared report period from the URL. */
  periodic: boolean;
  component: FunctionComponent<{ site: string }>;
}

export const SITE_SCREENS: readonly SiteScreen[] = [
  { slug: "overview", title: "Overview", scopes: ["read:reports"], periodic: true, component: OverviewScreen },
  { slug: "pages", title: "Pages", scopes: ["read:reports"], periodic: true, component: PagesScreen },
  { slug: "vitals", title: "Vitals", scopes: ["read:reports"], periodic: true, component: VitalsScreen },
  { slug: "goals", title: "Goals & funnels", scopes: ["read:sites"], periodic: true, component: GoalsScreen },
  { slug: "sessions", title: "Sessions", scopes: ["read:sessions"], periodic: false, component: SessionsScreen },
  { slug: "deployments", title: "Deployments", scopes: ["read:reports"], periodic: false, component: DeploymentsScreen },
  { slug: "alerts", title: "Alerts", scopes: ["read:reports", "write:alerts"], periodic: false, component: AlertsScreen },
];
