/**
 * How imported days are read (docs/reports.md, "Imported days"): which of the rule's parts a
 * report applies. The API always applies all of them; the privacy property test takes the cover
 * and the noise out (`UNCOVERED_IMPORTED` with `scope.noise` false) to show that the attacker then
 * pins what the served rule keeps hidden.
 */

export interface ImportedRule {
  /**
   * Complement cover: in a day's table of a dimension that splits the day's visitors, a hidden
   * remainder of 1 … k − 1 visitors hides the smallest shown cell too.
   */
  cover: boolean;
}

/** The rule as served. */
export const IMPORTED_RULE: ImportedRule = Object.freeze({ cover: true });

/** The rule without the cover (for the attack test only; with `scope.noise` false: exact figures too). */
export const UNCOVERED_IMPORTED: ImportedRule = Object.freeze({ cover: false });

/** Why a report over imported days leaves them out. */
export const IMPORTED_EXCLUSIONS = ["filters", "goal", "interval", "report"] as const;
export type ImportedExclusion = (typeof IMPORTED_EXCLUSIONS)[number];
