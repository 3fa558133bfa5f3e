/**
 * Which goals a beacon event completes.
 *
 * - page:   a pageview whose path matches the goal's pattern;
 * - event:  a custom event whose name equals the goal's match;
 * - time:   an engagement report of at least `threshold` seconds on a matching path;
 * - scroll: an engagement report of at least `threshold` percent depth on a matching path;
 * - outbound: the tracker's `Outbound Link: Click` event;
 * - download: its `File Download` event whose `file` ends in one of the goal's extensions (or any, `*`);
 * - not-found: its `404` event (`wren.notFound()`) on a matching path.
 *
 * Page, time and scroll goals count at most once per session (the writer keys them by goal
 * and session); an event goal (and outbound, download, not-found) counts every time the event
 * is sent, with its value.
 * Smoke-test goals (an event goal with `purpose: "smoke-test"`) are the operator's own
 * synthetic conversions: they count only through `/s2s` and `POST /api/v1/events`, never from
 * a beacon, so a page cannot fake (or spoil) a deployment's smoke test.
 * Patterns are exact paths in which `*` stands for any run of characters, `/` included,
 * matched by `lib/glob.ts` in linear time (a backtracking regex let one beacon freeze the service).
 */
import { cachedGlob } from "../lib/glob";
import { DOWNLOAD_EVENT, NOT_FOUND_EVENT, OUTBOUND_EVENT, downloadMatches } from "../lib/reserved-events";
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
  /**
   * The event's props; a download goal reads the reserved `file`. Either a plain object or as the
   * collector's props reader hands them on (`{entries: [name, value][]}`, issue 39's part A).
   */
  props?: unknown;
}

/** The text prop `name` of an event's props, in either shape. */
function sentProp(props: unknown, name: string): string | undefined {
  if (!props || typeof props !== "object") return undefined;
  const entries = (props as { entries?: unknown }).entries;
  const value = Array.isArray(entries)
    ? (entries as unknown[]).find((entry): entry is [string, unknown] => Array.isArray(entry) && entry[0] === name)?.[1]
    : (props as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
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
    case "outbound":
      return fact.type === "event" && fact.name === OUTBOUND_EVENT;
    case "download":
      return fact.type === "event" && fact.name === DOWNLOAD_EVENT && downloadMatches(goal.match, sentProp(fact.props, "file"));
    case "not-found":
      return fact.type === "event" && fact.name === NOT_FOUND_EVENT && pathMatches(goal.match, fact.path);
  }
}

/** Page, time and scroll goals count once per session; goals on events every time. */
export function countsOncePerSession(goal: GoalRule): boolean {
  return goal.kind === "page" || goal.kind === "time" || goal.kind === "scroll";
}
