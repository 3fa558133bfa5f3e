/**
 * What a rule's shape (api/routes/alerts.ts) cannot check: settings of the other kind, the goal
 * of a `goal` metric, the threshold against k (index.ts says why 1 or at least k), destinations
 * against WREN_WEBHOOK_ALLOW. Each break is a 422 naming the field.
 */
import { thresholdAllowed, thresholdRule } from "../../lib/alert-threshold";
import { HttpProblem } from "../../lib/problem";
import type { Database } from "../../lib/db";
import { isSmokeTestGoal } from "../../lib/schema";
import { destinationProblem, parseWebhookAllow } from "../../lib/webhook-allow";
import { requireGoal } from "../goals";
import type { DestinationInput, RuleInput } from "./types";

/** Where the rule's settings break a rule above: a 422 naming the field. */
export function invalid(field: string, message: string): HttpProblem {
  return new HttpProblem(422, `${field}: ${message}`, { field });
}

/** The settings that belong to a kind of rule; another kind's settings are refused by name. */
export const THRESHOLD_ONLY = ["metric", "goal_id", "condition", "threshold", "window_hours", "for_minutes"] as const;

/**
 * Checks what a rule's shape cannot: settings of the other kind, the goal of a `goal` metric,
 * the threshold against k, destinations against WREN_WEBHOOK_ALLOW.
 */
export async function checkRule(db: Database, input: RuleInput, k: number, allow: string | null | undefined): Promise<void> {
  if (input.kind === "deployment_without_smoke") {
    for (const field of THRESHOLD_ONLY)
      if (input[field] !== undefined) throw invalid(field, "belongs to threshold rules, not deployment_without_smoke.");
  } else {
    if (input.within_minutes !== undefined) throw invalid("within_minutes", "belongs to deployment_without_smoke rules.");
    if (input.metric === undefined) throw invalid("metric", "is required: goal, pageviews or visitors.");
    if (input.condition === undefined) throw invalid("condition", "is required: below or above.");
    if (input.threshold === undefined) throw invalid("threshold", "is required.");
    if (input.metric === "goal") {
      if (input.goal_id === undefined) throw invalid("goal_id", "is required when metric is goal.");
      const goal = await requireGoal(db, input.site, input.goal_id, "goal_id").catch(() => {
        throw invalid("goal_id", `${input.goal_id} is not a goal of site ${input.site}.`);
      });
      checkThreshold(input.threshold, isSmokeTestGoal(goal), k);
    } else {
      if (input.goal_id !== undefined) throw invalid("goal_id", "belongs to the goal metric only.");
      checkThreshold(input.threshold, false, k);
    }
  }
  checkDestinations(input.destinations, allow);
}

/** 1 or at least k, except on a smoke-test goal (index.ts; the words are lib/alert-threshold.ts's, as the dashboard's hint). */
export function checkThreshold(threshold: number, smoke: boolean, k: number): void {
  if (thresholdAllowed(threshold, smoke, k)) return;
  throw invalid("threshold", `must be ${thresholdRule(k)}.`);
}

function checkDestinations(destinations: DestinationInput[], allowText: string | null | undefined): void {
  const allow = parseWebhookAllow(allowText);
  destinations.forEach((d, i) => {
    const problem = destinationProblem(d.url, allow);
    if (problem)
      throw new HttpProblem(422, `destinations[${i}].url: ${problem}.`, { field: "url", pointer: `/destinations/${i}/url` });
  });
}
