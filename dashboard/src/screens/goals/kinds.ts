/**
 * What each kind of goal counts, in words: its label, what `match` means for it, and the
 * threshold where the API takes one (time: seconds, scroll: percent). The goal form's hints and
 * the goals table read this one table.
 */
import type { Goal } from "../../api/client";

export type GoalKind = Goal["kind"];

export interface KindSpec {
  label: string;
  match: string;
  placeholder: string;
  threshold?: { hint: string; max: number };
  /** The kinds on the tracker's own events: `match` may be left empty (any). */
  optional?: boolean;
}

export const GOAL_KINDS: Readonly<Record<GoalKind, KindSpec>> = {
  page: { label: "Page visited", match: "A path pattern: /thanks, or /docs/* (* is a wildcard).", placeholder: "/thanks" },
  event: {
    label: "Custom event",
    match: 'The name your pages send with wren.track("signup"): letters, digits, space and _ . : / -',
    placeholder: "signup",
  },
  time: {
    label: "Time on page",
    match: "A path pattern: counts a session that stays on a matching page for the threshold.",
    placeholder: "/pricing",
    threshold: { hint: "Seconds on the page (1–86400).", max: 86_400 },
  },
  scroll: {
    label: "Scroll depth",
    match: "A path pattern: counts a session that scrolls a matching page down to the threshold.",
    placeholder: "/blog/*",
    threshold: { hint: "Scroll depth in percent (1–100).", max: 100 },
  },
  outbound: {
    label: "Outbound link",
    match: 'Every click on a link to another site (snippet: data-track="outbound"). Leave empty, or *.',
    placeholder: "*",
    optional: true,
  },
  download: {
    label: "File download",
    match: 'Extensions separated by spaces (pdf zip); empty counts every download (snippet: data-track="downloads").',
    placeholder: "pdf zip",
    optional: true,
  },
  "not-found": {
    label: "Page not found",
    match: "A path pattern for the missing pages (wren.notFound() on your 404 page); empty counts every one.",
    placeholder: "/docs/*",
    optional: true,
  },
};

export const SMOKE_TEST = "smoke-test";

/** The operator's synthetic deploy check: in no report, listed with its deployment markers. */
export function isSmokeTest(goal: Goal): boolean {
  return goal.kind === "event" && goal.purpose === SMOKE_TEST;
}
