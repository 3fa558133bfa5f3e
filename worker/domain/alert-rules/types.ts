/**
 * The shapes of alert rules and their destinations, as asked for, as stored, and as the API and
 * its notifications name them; the defaults a rule takes.
 */
import type { AlertCondition, AlertKind, AlertMetric, AlertState, DestinationFormat } from "../../lib/schema";

export const DEFAULT_WINDOW_HOURS = 24;
export const DEFAULT_WITHIN_MINUTES = 15;
export const MAX_DESTINATIONS = 5;

export interface DestinationInput {
  url: string;
  format: DestinationFormat;
}

/** A rule as asked for, its shape checked (api/routes/alerts.ts); the rules here check the rest. */
export interface RuleInput {
  site: string;
  kind: AlertKind;
  metric?: AlertMetric;
  goal_id?: string;
  condition?: AlertCondition;
  threshold?: number;
  window_hours?: number;
  for_minutes?: number;
  within_minutes?: number;
  enabled: boolean;
  destinations: DestinationInput[];
}

export interface RuleChanges {
  enabled?: boolean;
  condition?: AlertCondition;
  threshold?: number;
  window_hours?: number;
  for_minutes?: number;
  within_minutes?: number;
  destinations?: DestinationInput[];
}

export interface Destination {
  id: string;
  url: string;
  format: DestinationFormat;
}

/** A rule and its state as stored (alert_rules and its destinations). */
export interface AlertRule {
  id: string;
  siteId: string;
  kind: AlertKind;
  metric: AlertMetric | null;
  goalId: string | null;
  /** True when the goal is a smoke-test goal: exact figures, minute resolution, any threshold. */
  smoke: boolean;
  condition: AlertCondition | null;
  threshold: number | null;
  windowHours: number | null;
  forMinutes: number;
  withinMinutes: number | null;
  enabled: boolean;
  state: AlertState;
  seq: number;
  stateSince: number;
  pendingSince: number | null;
  lastValue: number | null;
  lastQualifier: string | null;
  evaluatedAt: number | null;
  deploymentId: string | null;
  createdAt: number;
  updatedAt: number;
  destinations: Destination[];
}

/** A rule's settings as the API and its notifications name them (snake_case, the site as `site`). */
export interface RuleSettings {
  id: string;
  site: string;
  kind: AlertKind;
  metric: AlertMetric | null;
  goal_id: string | null;
  condition: AlertCondition | null;
  threshold: number | null;
  window_hours: number | null;
  for_minutes: number;
  within_minutes: number | null;
}

export function ruleSettings(rule: AlertRule): RuleSettings {
  return {
    id: rule.id,
    site: rule.siteId,
    kind: rule.kind,
    metric: rule.metric,
    goal_id: rule.goalId,
    condition: rule.condition,
    threshold: rule.threshold,
    window_hours: rule.windowHours,
    for_minutes: rule.forMinutes,
    within_minutes: rule.withinMinutes,
  };
}
