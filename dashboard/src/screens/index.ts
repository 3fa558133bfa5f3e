/**
 * Every screen, where it lives in the URL, and what it needs. A site's screens are tabs under
 * /s/<site>/; the app shell draws the navigation from this table. Each screen is loaded when
 * first shown (its own chunk), so the first load carries the shell and one screen.
 */
import type { FunctionComponent } from "preact";
import type { Scope } from "../api/client";
import { lazyScreen } from "../ui/lazy";

const OverviewScreen = lazyScreen(() => import("./overview").then((m) => m.OverviewScreen));
const PagesScreen = lazyScreen(() => import("./pages").then((m) => m.PagesScreen));
const SourcesScreen = lazyScreen(() => import("./sources").then((m) => m.SourcesScreen));
const VitalsScreen = lazyScreen(() => import("./vitals").then((m) => m.VitalsScreen));
const GoalsScreen = lazyScreen(() => import("./goals").then((m) => m.GoalsScreen));
const SessionsScreen = lazyScreen(() => import("./sessions").then((m) => m.SessionsScreen));
const DeploymentsScreen = lazyScreen(() => import("./deployments").then((m) => m.DeploymentsScreen));
const SiteSettingsScreen = lazyScreen(() => import("./site-settings").then((m) => m.SiteSettingsScreen));
const AlertsScreen = lazyScreen(() => import("./alerts").then((m) => m.AlertsScreen));
export const KeysScreen = lazyScreen(() => import("./keys").then((m) => m.KeysScreen));
export const WizardScreen = lazyScreen(() => import("./wizard").then((m) => m.WizardScreen));
// People's screens: each its own chunk too, so the shell stays the sign-in and the sites list.
export const AccountScreen = lazyScreen(() => import("./account").then((m) => m.AccountScreen));
export const AuditScreen = lazyScreen(() => import("./audit").then((m) => m.AuditScreen));
export const InviteScreen = lazyScreen(() => import("./invite").then((m) => m.InviteScreen));
export const PeopleScreen = lazyScreen(() => import("./people").then((m) => m.PeopleScreen));

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
  { slug: "sources", title: "Sources", scopes: ["read:reports"], periodic: true, component: SourcesScreen },
  { slug: "vitals", title: "Vitals", scopes: ["read:reports"], periodic: true, component: VitalsScreen },
  { slug: "goals", title: "Goals & funnels", scopes: ["read:sites"], periodic: true, component: GoalsScreen },
  { slug: "sessions", title: "Sessions", scopes: ["read:sessions"], periodic: false, component: SessionsScreen },
  { slug: "deployments", title: "Deployments", scopes: ["read:reports"], periodic: false, component: DeploymentsScreen },
  { slug: "alerts", title: "Alerts", scopes: ["read:reports", "write:alerts"], periodic: false, component: AlertsScreen },
  { slug: "settings", title: "Settings", scopes: ["read:sites"], periodic: false, component: SiteSettingsScreen },
];
