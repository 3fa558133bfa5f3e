/** What every report is computed for: one site, whole local days from..to, and k. */
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
}
