/**
 * What a notification says. The Standard Webhooks body is `{type, timestamp, data}`: the rule,
 * the transition, the figure with its qualifier (a suppressed figure says `suppressed`, with a
 * null value: never a number), the window, the marker of a deployment rule, and links to the
 * Overview. The delivery formats (worker/alerts/payload.ts) say the same in other words.
 */
import type { AlertState } from "../../lib/schema";
import { storedFigure, type Figure } from "../../reports/figures";
import type { HourWindow } from "../../reports/scope";
import { ruleSettings, type AlertRule, type RuleSettings } from "./types";

export type NotificationType = "alert.firing" | "alert.resolved" | "alert.test";

/** The deployment marker a `deployment_without_smoke` rule fired on. */
export interface Marker {
  id: string;
  version: string;
  deployed_at: string;
}

export interface Notification {
  type: NotificationType;
  timestamp: string;
  data: {
    rule: RuleSettings;
    state: { from: AlertState; to: AlertState; at: string } | null;
    figure: Figure;
    window: { start: string; end: string };
    deployment: Marker | null;
    links: { overview: string; dashboard: string; history: string };
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

export function notification(
  type: NotificationType,
  rule: AlertRule,
  state: Notification["data"]["state"],
  figure: Figure,
  window: HourWindow,
  deployment: Marker | null,
  publicUrl: string,
  at: number,
): Notification {
  const overview = `${publicUrl}/api/v1/overview?site=${rule.siteId}${deployment ? `&deployment=${deployment.id}` : ""}`;
  return {
    type,
    timestamp: iso(at),
    data: {
      rule: ruleSettings(rule),
      state,
      // A suppressed figure is carried as such, never with a value.
      figure: storedFigure(figure.value, figure.qualifier),
      window: { start: iso(window.fromMs), end: iso(window.toMs) },
      deployment,
      links: {
        overview,
        dashboard: `${publicUrl}/dashboard/?site=${rule.siteId}`,
        history: `${publicUrl}/api/v1/alerts/${rule.id}/history`,
      },
    },
  };
}
