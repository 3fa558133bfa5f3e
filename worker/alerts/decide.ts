/**
 * A rule's state machine, pure: `ok` → `firing` → `ok` (resolved).
 *
 * - A threshold rule fires when its figure is below (above) the threshold, once the condition
 *   has held for `for_minutes` of figures (measured between the windows' ends, so an hourly
 *   rule's transitions fall on hour boundaries). It resolves only past a band beyond the
 *   threshold — threshold + band for `below`, threshold − band for `above`, band = a tenth of
 *   the threshold and at least 1 — so a counter sitting at the threshold does not flap.
 * - A suppressed figure decides nothing: the state holds until a figure can be seen.
 * - `deployment_without_smoke` fires when the latest due marker has no smoke conversion, and
 *   fires again for a later marker without one; it resolves when a smoke conversion is beside
 *   the marker (late, or a later marker's).
 */
import type { AlertRule } from "../domain/alert-rules";
import type { AlertState } from "../lib/schema";
import type { RuleReading } from "./figures";

export interface Decision {
  state: AlertState;
  pendingSince: number | null;
  /** Set when the state changes (or a new marker fires again): a transition to record and send. */
  transition: { from: AlertState; to: AlertState } | null;
}

/** How far past the threshold a firing rule's figure must go to resolve. */
export function resolveBand(threshold: number): number {
  return Math.max(1, Math.floor(threshold / 10));
}

export function decide(rule: AlertRule, reading: RuleReading | undefined): Decision {
  const keep: Decision = { state: rule.state, pendingSince: rule.pendingSince, transition: null };
  if (!reading || reading.figure.value === null) return keep;
  const value = reading.figure.value;
  if (rule.kind === "deployment_without_smoke") {
    const missing = value === 0;
    const sameMarker = reading.deployment?.id === rule.deploymentId;
    if (rule.state === "ok") return missing && !sameMarker ? fire(rule) : keep;
    if (!missing) return resolve();
    return sameMarker ? keep : fire(rule);
  }
  const threshold = rule.threshold!;
  if (rule.state === "firing") {
    const band = rule.condition === "below" ? resolveBand(threshold) : Math.min(threshold, resolveBand(threshold));
    const clear = rule.condition === "below" ? value >= threshold + band : value <= threshold - band;
    return clear ? resolve() : keep;
  }
  const holds = rule.condition === "below" ? value < threshold : value > threshold;
  if (!holds) return { state: "ok", pendingSince: null, transition: null };
  const since = rule.pendingSince ?? reading.at;
  if (reading.at - since >= rule.forMinutes * 60_000) return fire(rule);
  return { state: "ok", pendingSince: since, transition: null };
}

function fire(rule: AlertRule): Decision {
  return { state: "firing", pendingSince: null, transition: { from: rule.state, to: "firing" } };
}

function resolve(): Decision {
  return { state: "ok", pendingSince: null, transition: { from: "firing", to: "ok" } };
}
