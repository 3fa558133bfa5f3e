/**
 * Computed reports, kept in the isolate by what they were computed from: the site, the
 * period, k, the report's own parameters, the site's goals and the publication's version.
 * A published cell changes only in a transaction that raises the version (a late row folded
 * into it, a time zone refold), so an entry is exact for as long as its key can be formed;
 * ordinary ingest folds into cells not yet published and keeps it. A dashboard's repeated
 * reads then cost no report query at all. Entries are shared: callers must not mutate what they get.
 */

/** Entries kept; the least recently used goes first. */
export const REPORT_CACHE_ENTRIES = 64;

export class ReportCache {
  readonly #entries = new Map<string, Promise<unknown>>();

  constructor(private readonly capacity = REPORT_CACHE_ENTRIES) {}

  get size(): number {
    return this.#entries.size;
  }

  /**
   * The value for `key`, computing it once. Concurrent callers share the computation; a
   * failed one is forgotten, so the next caller computes again.
   */
  remember<T>(key: string, compute: () => Promise<T>): Promise<T> {
    const hit = this.#entries.get(key);
    if (hit) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      return hit as Promise<T>;
    }
    const value = compute();
    this.#entries.set(key, value);
    value.catch(() => {
      if (this.#entries.get(key) === value) this.#entries.delete(key);
    });
    while (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
    return value;
  }
}
