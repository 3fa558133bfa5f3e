/**
 * The session-salt schedule, kept pure so it can be tested without a database (salt-store.ts
 * applies it to the `session_salts` table).
 *
 * A salt hashes new session ids for one period (24 h), then stays one more period only to
 * find sessions seen while it was current (a conversion may arrive up to 24 h after its
 * session was last seen), and is then deleted. No salt lives longer than two periods, so
 * once the window has closed nothing can recompute a stored hash from a tracker's id.
 */
export const SALT_PERIOD_MS = 24 * 60 * 60 * 1000;
/**
 * Instances of a scale-out share the salts but not a clock: a salt another instance made a
 * moment "in the future" of this one's clock is still the current one, not a reason to make another.
 */
export const SALT_CLOCK_SKEW_MS = 5 * 60 * 1000;

export interface Salt {
  id: string;
  /** 32 random bytes, hex. */
  secret: string;
  createdAt: number;
}

export interface SaltPlan {
  /** The salt that hashes new activity; null when a new one must be made first. */
  current: Salt | null;
  /** The salt before it, kept only for lookups. */
  previous: Salt | null;
  /** Salts past their lookup period: delete them. */
  expired: Salt[];
}

/** Sorts the stored salts into current, previous (lookups only) and expired at `now`. */
export function planSalts(stored: readonly Salt[], now: number): SaltPlan {
  const newestFirst = [...stored].sort((a, b) => b.createdAt - a.createdAt);
  const usable = newestFirst.filter((s) => s.createdAt <= now + SALT_CLOCK_SKEW_MS && now < s.createdAt + 2 * SALT_PERIOD_MS);
  const expired = newestFirst.filter((s) => !usable.includes(s));
  const newest = usable[0] ?? null;
  const current = newest && now < newest.createdAt + SALT_PERIOD_MS ? newest : null;
  // When a new salt must be made, the newest usable one becomes the previous.
  const previous = current ? (usable[1] ?? null) : newest;
  // Anything older than the previous is past use, even inside its nominal lifetime.
  for (const salt of usable.slice(current ? 2 : 1)) expired.push(salt);
  return { current, previous, expired };
}

/** When the plan next changes: the current salt's period ends or the previous one expires. */
export function nextChange(current: Salt, previous: Salt | null): number {
  const currentEnds = current.createdAt + SALT_PERIOD_MS;
  return previous ? Math.min(currentEnds, previous.createdAt + 2 * SALT_PERIOD_MS) : currentEnds;
}
