/**
 * The 24-hour event window. A replayed event may carry its own time: accepted when it is no
 * older than the window and not in the future (a minute of clock skew is allowed).
 */
export const EVENT_WINDOW_MS = 24 * 60 * 60 * 1000;
export const CLOCK_SKEW_MS = 60 * 1000;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/i;

/** Milliseconds since the epoch from an RFC 3339 string or a number of milliseconds; null if neither. */
export function parseTimestamp(value: string | number): number | null {
  if (typeof value === "number") return Number.isSafeInteger(value) && value > 0 ? value : null;
  if (!RFC3339.test(value)) return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}

/** Why a time is outside the window at `now`, or null when it is inside. */
export function outsideWindow(ts: number, now: number): string | null {
  if (ts > now + CLOCK_SKEW_MS) return "is in the future";
  if (ts < now - EVENT_WINDOW_MS) return "is older than the 24-hour event window";
  return null;
}
