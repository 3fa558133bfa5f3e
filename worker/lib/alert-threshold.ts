/**
 * Which thresholds a `threshold` alert rule takes, in one place for the API's validation
 * (domain/alert-rules/validate.ts checkThreshold) and the dashboard's hint beside the field, so the two
 * say the same: 1 ("none at all") or at least k, since the reports show no figure from 1 to
 * k − 1; a smoke-test goal counts exactly and takes any. Imported by the dashboard: no imports.
 */

/** True when a rule may watch for `threshold` (module comment). */
export function thresholdAllowed(threshold: number, smoke: boolean, k: number): boolean {
  return smoke || threshold === 1 || threshold >= k;
}

/** The rule in words, for k: what the refusal says after "must be", and the hint after "A whole number:". */
export function thresholdRule(k: number): string {
  if (k <= 2) return "1 or more (1 with below: none at all)";
  const refused = k === 3 ? "2" : `from 2 to ${k - 1}`;
  return `1 (with below: none at all) or at least k = ${k}: the reports show no figure from 1 to ${k - 1}, so a threshold ${refused} could never be seen crossed`;
}
