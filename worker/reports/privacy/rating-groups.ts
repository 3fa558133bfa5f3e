/**
 * Rating groups of a vitals atom (rule "vitals" in index.ts; docs/reports.md, rule 8): good,
 * needs improvement and poor partition the atom's samples, so a group is shown only when it
 * provably holds k sessions, with complementary suppression; in TypeScript and as its SQL twin.
 */

/**
 * The rating groups of a vitals atom (good, needs improvement, poor: one sample each, a
 * session's samples possibly in several) partition its samples; a shown share × the shown
 * samples is the group's sample count, drawn from the group's sessions. The rollup counts
 * samples per group, not sessions, but every unit of the atom has at least one sample, so a
 * group of `x` samples holds at least units − samples + x sessions (the units outside it have
 * at least one sample each among the other samples) — and at most x. A group is shown when
 * that lower bound is at least k (or it has no samples: an exact 0). The hidden groups'
 * samples are what the samples minus the shown groups single out: unless they provably hold
 * k sessions together (units − samples + their samples ≥ k), the smallest shown group with
 * samples is hidden too (by samples, then in the order good, needs improvement, poor).
 */
export function ratingGroupsVisible(units: number, samples: number, groups: readonly number[], k: number): boolean[] {
  const atLeast = (x: number) => units - samples + x;
  const shown = groups.map((x) => x === 0 || atLeast(x) >= k);
  const hidden = groups.reduce((n, x, i) => n + (shown[i] ? 0 : x), 0);
  if (hidden > 0 && atLeast(hidden) < k) {
    let smallest = -1;
    groups.forEach((x, i) => {
      if (shown[i] && x > 0 && (smallest < 0 || x < groups[smallest]!)) smallest = i;
    });
    if (smallest >= 0) shown[smallest] = false;
  }
  return shown;
}

/**
 * SQL twin of ratingGroupsVisible over `source`, a relation with columns units, samples, good,
 * needs_improvement and poor: all its columns, and good_shown, needs_improvement_shown and
 * poor_shown (1 or 0). Parameter ?1: k.
 */
export function ratingGroupsSql(source: string): string {
  const groups = ["good", "needs_improvement", "poor"];
  const never = "9223372036854775807";
  return (
    `SELECT *, ${groups.map((g) => `(${g}_base AND NOT (needs_cover AND ${g}_key = cover_key)) AS ${g}_shown`).join(", ")} FROM (` +
    `SELECT *, min(${groups.map((g) => `${g}_key`).join(", ")}) AS cover_key, ` +
    `(hidden_samples > 0 AND units - samples + hidden_samples < ?1) AS needs_cover FROM (` +
    `SELECT *, ${groups.map((g, i) => `CASE WHEN ${g}_base AND ${g} > 0 THEN ${g} * 4 + ${i} ELSE ${never} END AS ${g}_key`).join(", ")}, ` +
    `(${groups.map((g) => `CASE WHEN ${g}_base THEN 0 ELSE ${g} END`).join(" + ")}) AS hidden_samples FROM (` +
    `SELECT *, ${groups.map((g) => `(${g} = 0 OR units - samples + ${g} >= ?1) AS ${g}_base`).join(", ")} FROM ${source})))`
  );
}
