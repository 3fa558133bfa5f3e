/**
 * Which goals a beacon event completes.
 *
 * - page:   a pageview whose path matches the goal's pattern;
 * - event:  a custom event whose name equals the goal's match;
 * - time:   an engagement report of at least `threshold` seconds on a matching path;
 * - scroll: an engagement report of at least `threshold` percent depth on a matching path.
 *
 * Page, time and scroll goals count at most once per session (the writer keys them by goal
 * and session); an event goal counts every time the event is sent, with its value.
 * Smoke-test goals (an event goal with `purpose: "smoke-test"`) are the operator's own
 * synthetic conversions: they count only through `/s2s` and `POST /api/v1/events`, never from
 * a beacon, so a page cannot fake (or spoil) a deployment's smoke test.
 * Patterns are exact paths in which `*` stands for any run of characters, `/` included,
 * matched by `lib/glob.ts` in linear time (a backtracking regex let one beacon freeze the service).
 */
import { cachedGlob } from "../lib/glob";
import type { GoalKind } from "../lib/schema";

export interface GoalRule {
  id: string;
  kind: GoalKind;
  match: string;
  threshold: number;
  /** A smoke-test goal: counted from s2s only, and recorded beside deployment markers. */
  smoke?: boolean;
  /** A revenue goal's currency (ISO 4217); null or absent for a plain goal. */
  currency?: string | null;
}

export interface BeaconFacts {
  type: "pageview" | "event" | "engagement" | "vital";
  path: string;
  name?: string;
  seconds?: number;
  scroll?: number;
}

/** Whether `path` matches a goal pattern; linear time whatever the pattern (see `lib/glob.ts`). */
export function pathMatches(pattern: string, path: string): boolean {
  return cachedGlob(pattern).matches(path);
}

export function goalCompleted(goal: GoalRule, fact: BeaconFacts): boolean {
  if (goal.smoke) return false;
  switch (goal.kind) {
    case "page":
      return fact.type === "pageview" && pathMatches(goal.match, fact.path);
    case "event":
      return fact.type === "event" && fact.name === goal.match;
    case "time":
      return fact.type === "engagement" && (fact.seconds ?? 0) >= goal.threshold && pathMatches(goal.match, fact.path);
    case "scroll":
      return fact.type === "engagement" && (fact.scroll ?? 0) >= goal.threshold && pathMatches(goal.match, fact.path);
  }
}

/** Page, time and scroll goals count once per session; event goals every time. */
export function countsOncePerSession(goal: GoalRule): boolean {
  return goal.kind !== "event";
}
