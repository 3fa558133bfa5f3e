/**
 * What a notification says. The Standard Webhooks body is `{type, timestamp, data}`: the rule,
 * the transition, the figure with its qualifier (a suppressed figure says `suppressed`, with a
 * null value: never a number), the window, the marker of a deployment rule, and links to the
 * Overview. The `slack` format is a Slack incoming-webhook message saying the same in words.
 */
import { ruleSettings, type AlertRule, type RuleSettings } from "../domain/alert-rules";
import { storedFigure, type Figure } from "../reports/figures";
import type { AlertState } from "../lib/schema";
import type { Marker } from "./figures";
import type { HourWindow } from "../reports/scope";

export type NotificationType = "alert.firing" | "alert.resolved" | "alert.test";

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
      links: { overview, dashboard: `${publicUrl}/dashboard/?site=${rule.siteId}`, history: `${publicUrl}/api/v1/alerts/${rule.id}/history` },
    },
  };
}

function describeFigure(figure: Figure): string {
  if (figure.value === null) return "suppressed (fewer than k sessions)";
  return `${figure.qualifier === "estimated" ? "≈" : ""}${figure.value}`;
}

/** The rule in words, for the Slack message. */
function describeRule(rule: Notification["data"]["rule"]): string {
  if (rule.kind === "deployment_without_smoke") return `a deployment without a smoke conversion within ${rule.within_minutes} min`;
  const what = rule.metric === "goal" ? `conversions of ${rule.goal_id}` : rule.metric;
  return `${what} ${rule.condition} ${rule.threshold} over ${rule.window_hours} h`;
}

/** A Slack incoming-webhook message: `text` is what Slack shows and notifies with. */
export function slackMessage(n: Notification): { text: string } {
  const head =
    n.type === "alert.firing" ? ":rotating_light: Firing" : n.type === "alert.resolved" ? ":white_check_mark: Resolved" : ":test_tube: Test";
  const marker = n.data.deployment ? ` Deployment ${n.data.deployment.version} (${n.data.deployment.deployed_at}).` : "";
  return {
    text:
      `${head}: ${describeRule(n.data.rule)} on ${n.data.rule.site}. Figure: ${describeFigure(n.data.figure)}, ` +
      `${n.data.window.start} – ${n.data.window.end}.${marker} <${n.data.links.overview}|Overview>`,
  };
}
