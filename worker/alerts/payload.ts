/**
 * The delivery formats of a notification (domain/alert-rules/notification.ts): `standard` sends
 * the Standard Webhooks body as it is; `slack` is a Slack incoming-webhook message saying the
 * same in words. Slack reads `<…>` in `text` as markup (`<!channel>` pings everyone,
 * `<url|label>` is a link under any label), so every piece of text put in it is escaped
 * (`&`, `<`, `>`, as Slack asks); only the message's own link is markup.
 */
import type { Notification } from "../domain/alert-rules";
import type { Figure } from "../reports/figures";

/** Text as Slack shows it, never as markup (https://api.slack.com/reference/surfaces/formatting#escaping). */
export function slackEscape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A link in Slack markup: the URL escaped, and its `|` (the label separator) percent-encoded. */
function slackLink(url: string, label: string): string {
  return `<${slackEscape(url).replace(/\|/g, "%7C")}|${slackEscape(label)}>`;
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
  const words =
    `${head}: ${describeRule(n.data.rule)} on ${n.data.rule.site}. Figure: ${describeFigure(n.data.figure)}, ` +
    `${n.data.window.start} – ${n.data.window.end}.${marker}`;
  return { text: `${slackEscape(words)} ${slackLink(n.data.links.overview, "Overview")}` };
}
