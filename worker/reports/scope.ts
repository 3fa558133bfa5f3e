/**
 * The scope of a report: which site, days and hours it covers, its k, and whether (and with
 * which secrets) its figures are perturbed.
 */
import type { ImportedRule } from "./imported/rule";
import type { NoiseKey } from "./noise-position";

/** Closed local hours [fromMs, toMs), both at local hour starts (UTC ms). */
export interface HourWindow {
  fromMs: number;
  toMs: number;
}

/** What every report is computed for: one site, whole local days from..to (or closed hours in them), and k. */
export interface ReportScope {
  siteId: string;
  /** First and last local date (YYYY-MM-DD), inclusive. */
  from: string;
  to: string;
  /** The site's time zone (IANA), in which the days are cut. */
  timeZone: string;
  /** The k of the k-anonymity filter. */
  k: number;
  /**
   * Perturb figures by the cell key method (noise.ts). The API always does; tests of the
   * suppression rules turn it off to attack exact figures, the stronger attacker.
   */
  noise?: boolean;
  /**
   * The database's noise secrets (noise-position.ts), read once with the request's other
   * lookups: where a report perturbs in TypeScript it needs them; SQL reads them itself.
   */
  noiseKey?: NoiseKey;
  /**
   * For reports of closed hours (`today`, `24h`, the Overview): the hours covered, and the last
   * day that has ended (later days are still running).
   */
  hours?: { window: HourWindow; lastEndedDay: string };
  /**
   * The last day published under the earlier hour rule (publication.ts legacyDays): its hours and
   * those before keep the decisions they were published with. Absent or "": none.
   */
  legacyDays?: string;
  /**
   * Read the imported days of the period by this rule (imported/cells.ts), beside the collected
   * ones. Absent: they are left out (filters, a goal's breakdown, hours, the reports that never
   * read them); only the routes that include them set it.
   */
  imported?: ImportedRule;
}
