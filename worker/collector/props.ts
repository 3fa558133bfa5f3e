/**
 * Custom properties at the edge (docs/collector.md, "Custom properties"). What was sent is read
 * in the sent order: past MAX_PROPS each is dropped as `too_many`; of the others, a name off
 * PROP_NAME_PATTERN is `invalid_name`, a value that is not a string or is empty once cleaned is
 * `invalid_value`, and a name not on the site's allowlist is `not_allowed`. The reserved names
 * (`url`, `file`: the tracker's outbound and download opt-ins) are always allowed. What is left
 * is stored as a JSON object; every drop is counted per site, UTC day and reason (prop_drops),
 * and nothing else about it is kept. No beacon is refused for its props.
 *
 * Objects are read with Object.entries and built with Object.fromEntries (own keys only), so a
 * name such as `__proto__` is a name like any other and never reaches a prototype.
 */
import { MAX_PROP_VALUE_LENGTH, MAX_PROPS, PROP_NAME_PATTERN, RESERVED_PROPS, cleanText } from "../lib/beacon-limits";
import type { PropDropReason } from "../lib/schema/props";
import type { PropDropRow } from "./rows";

export { RESERVED_PROPS };

/** Props as read from a request, before the allowlist: cleaned candidates, and what was dropped already. */
export interface SentProps {
  entries: [string, string][];
  drops: Partial<Record<PropDropReason, number>>;
}

/** Each prop dropped for one reason, counted. */
export type PropDropCounts = Partial<Record<PropDropReason, number>>;

function add(drops: PropDropCounts, reason: PropDropReason, n = 1): void {
  if (n > 0) drops[reason] = (drops[reason] ?? 0) + n;
}

/** A plain JSON object (not an array, not null). */
export function isPropsObject(input: unknown): input is Record<string, unknown> {
  return input !== null && typeof input === "object" && !Array.isArray(input);
}

/**
 * What was sent as `props`, in any shape: a value that is not an object carries no props (and
 * no drops: there is no name to count); an object's entries are bounded, named and cleaned.
 */
export function readProps(input: unknown): SentProps {
  const out: SentProps = { entries: [], drops: {} };
  if (!isPropsObject(input)) return out;
  const sent = Object.entries(input);
  add(out.drops, "too_many", sent.length - MAX_PROPS);
  for (const [name, raw] of sent.slice(0, MAX_PROPS)) {
    if (!PROP_NAME_PATTERN.test(name)) add(out.drops, "invalid_name");
    else if (typeof raw !== "string") add(out.drops, "invalid_value");
    else {
      const value = cleanText(raw, MAX_PROP_VALUE_LENGTH);
      if (value.trim() === "") add(out.drops, "invalid_value");
      else out.entries.push([name, value]);
    }
  }
  return out;
}

/** The props kept under the site's allowlist, as stored (JSON, null when none), and every drop. */
export function keptProps(
  sent: SentProps | undefined,
  allowed: ReadonlySet<string>,
): { json: string | null; drops: PropDropCounts } {
  if (!sent) return { json: null, drops: {} };
  const drops: PropDropCounts = { ...sent.drops };
  const kept: [string, string][] = [];
  for (const entry of sent.entries) {
    if (allowed.has(entry[0]) || RESERVED_PROPS.includes(entry[0])) kept.push(entry);
    else add(drops, "not_allowed");
  }
  return { json: kept.length > 0 ? JSON.stringify(Object.fromEntries(kept)) : null, drops };
}

/** Adds a request's drops to its rows: one per reason, on the UTC day of `now`. */
export function noteDrops(
  rows: PropDropRow[],
  siteId: string,
  now: number,
  drops: PropDropCounts,
  tokenVersion: number | null = null,
): void {
  const day = new Date(now).toISOString().slice(0, 10);
  for (const [reason, count] of Object.entries(drops)) if (count > 0) rows.push({ siteId, day, reason, count, tokenVersion });
}
