/**
 * Bands of width k (docs/reports.md "Live" and "Today"): a figure read from raw rows again and
 * again (the live counter each minute, today's pages and breakdowns each hour) is shown as the
 * band its perturbed count falls in, not as the count, so that one more session moves it by a
 * whole band or not at all, and then by a fresh draw of the noise, not by the session.
 */

/** The band a perturbed count of at least k falls in: 10–14 for 12 with k = 5. */
export function bandOf(noisy: number, k: number): { low: number; high: number } {
  const low = Math.floor(noisy / k) * k;
  return { low, high: low + k - 1 };
}
