/**
 * A report figure: `{value, qualifier}`. `suppressed` always carries `value: null`; `estimated`
 * marks a figure computed rather than counted; `exact` the rest. Figures are only ever built
 * here and in privacy/tally.ts, and are passed through to every output format untouched.
 */
export const QUALIFIERS = ["exact", "estimated", "suppressed"] as const;
export type Qualifier = (typeof QUALIFIERS)[number];

export interface Figure {
  value: number | null;
  qualifier: Qualifier;
}

/** A band of counts (today's pages and breakdowns, privacy/today.ts): `value` is its lower end. */
export interface BandFigure extends Figure {
  high: number;
}

export const SUPPRESSED: Figure = Object.freeze({ value: null, qualifier: "suppressed" }) as Figure;

/**
 * A figure from stored columns (an alert rule's last figure, a transition's): a null value or a
 * `suppressed` qualifier is the suppressed figure, never a number.
 */
export function storedFigure(value: unknown, qualifier: unknown): Figure {
  if (value === null || value === undefined || qualifier === "suppressed") return SUPPRESSED;
  return { value: Number(value), qualifier: String(qualifier) as Qualifier };
}

/** A band of counts, low … high (estimated: read from perturbed counts). */
export function band(low: number, high: number): BandFigure {
  return { value: low, qualifier: "estimated", high };
}

export function exact(value: number): Figure {
  return { value, qualifier: "exact" };
}

export function estimated(value: number): Figure {
  return { value, qualifier: "estimated" };
}

/**
 * A figure built from perturbed cells (noise.ts) is `estimated`; no data (an exact 0) and
 * suppressed figures stay as they are.
 */
export function perturbedFigure(figure: Figure, perturbed: boolean | undefined): Figure {
  if (!perturbed || figure.qualifier !== "exact" || figure.value === 0) return figure;
  return { value: figure.value, qualifier: "estimated" };
}

/** The weaker of qualifiers: suppressed over estimated over exact. */
export function weakest(...qualifiers: Qualifier[]): Qualifier {
  if (qualifiers.includes("suppressed")) return "suppressed";
  if (qualifiers.includes("estimated")) return "estimated";
  return "exact";
}

/** Rounds to a fixed number of decimals (ratios, shares, CLS), keeping integers as they are. */
export function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

/**
 * numerator / denominator, for rates and shares. Suppressed when either side is; 0 when the
 * denominator is 0; capped at 1 (a converting session need not have been seen that day, so
 * the ratio of two visible counts can exceed 1), which makes it estimated. Rounded to
 * `decimals`: a quotient that rounding changed (1/3 → 0.3333) is estimated too, so `exact`
 * always means the value is the fraction itself.
 */
export function ratio(numerator: Figure, denominator: Figure, decimals = 4): Figure {
  if (numerator.value === null || denominator.value === null) return SUPPRESSED;
  let qualifier = weakest(numerator.qualifier, denominator.qualifier);
  if (denominator.value === 0) return { value: 0, qualifier };
  let value = numerator.value / denominator.value;
  if (value > 1) {
    value = 1;
    qualifier = "estimated";
  }
  const rounded = round(value, decimals);
  return { value: rounded, qualifier: rounded === value ? qualifier : "estimated" };
}

/** a − b for two figures of the same rows (drop-off); suppressed when either is. */
export function difference(a: Figure, b: Figure): Figure {
  if (a.value === null || b.value === null) return SUPPRESSED;
  return { value: a.value - b.value, qualifier: weakest(a.qualifier, b.qualifier) };
}
