/** How an alert rule reads in words: what it watches, its condition, its window. */
import type { Schemas } from "../../api/client";
import { formatValue } from "../../ui/figure";

export type AlertRule = Schemas["AlertRule"];

export const KIND_LABELS: Record<AlertRule["kind"], string> = {
  threshold: "Threshold",
  deployment_without_smoke: "Deployment without smoke test",
};

/** A goal's name when this key can list goals, else its id. */
export type GoalName = (id: string) => string;

export function watchesText(rule: AlertRule, goalName: GoalName): string {
  if (rule.kind === "deployment_without_smoke") return "Deployments";
  if (rule.metric === "goal") return `Conversions of ${goalName(rule.goal_id ?? "")}`;
  return rule.metric === "visitors" ? "Visitors" : "Pageviews";
}

export function conditionText(rule: AlertRule): string {
  if (rule.kind === "deployment_without_smoke") return `No smoke test within ${rule.within_minutes ?? 15} min`;
  return `${rule.condition === "above" ? "Above" : "Below"} ${formatValue(rule.threshold ?? 0)}`;
}

export function windowText(rule: AlertRule): string {
  if (rule.kind === "deployment_without_smoke") return `${rule.within_minutes ?? 15} min after each deployment`;
  const held = rule.for_minutes > 0 ? `, held ${formatValue(rule.for_minutes)} min` : "";
  return `Last ${rule.window_hours ?? 24} h${held}`;
}

/** "Pageviews below 20": the rule in a line, for headings and messages. */
export function ruleSummary(rule: AlertRule, goalName: GoalName): string {
  return `${watchesText(rule, goalName)}: ${conditionText(rule).toLowerCase()}`;
}
