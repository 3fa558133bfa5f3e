/**
 * A digest's periods, in local dates of the site's zone: weekly is Monday–Sunday (sent once
 * Sunday is published, i.e. from Monday 00:00 there), monthly the 1st to the month's last day.
 * Whole local days only: every figure of a digest is a figure the API gives for from..to.
 */
import type { DigestFrequency } from "../../lib/schema";
import { addDays } from "../../reports/timezone";

export interface DigestPeriod {
  from: string;
  to: string;
}

const weekday = (date: string): number => new Date(`${date}T00:00:00Z`).getUTCDay();

/** The end (last local date) of the latest complete period that ends on or before `date`. */
export function latestPeriodEnd(frequency: DigestFrequency, date: string): string {
  if (frequency === "weekly") return addDays(date, -weekday(date));
  if (addDays(date, 1).endsWith("-01")) return date;
  return addDays(`${date.slice(0, 8)}01`, -1);
}

/** The period ending on `to` (a period end). */
export function periodEnding(frequency: DigestFrequency, to: string): DigestPeriod {
  return { from: frequency === "weekly" ? addDays(to, -6) : `${to.slice(0, 8)}01`, to };
}

/** The period before `period`: what its deltas compare with. */
export function previousPeriod(frequency: DigestFrequency, period: DigestPeriod): DigestPeriod {
  return periodEnding(frequency, addDays(period.from, -1));
}
