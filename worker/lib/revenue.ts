/**
 * Revenue on the wire: one definition of an amount and a currency for the collector (beacons,
 * `/s2s`, `POST /api/v1/events`), the goals API and the CLI, so they refuse the same things.
 *
 * - A currency is an ISO 4217 code in upper case that the runtime's `Intl` knows
 *   (`Intl.supportedValuesOf("currency")`): `eur` and `"EUR "` are refused, not read as EUR —
 *   a goal's figures must never mix two spellings of a shop's settings.
 * - An amount is a finite number in 0 … MAX_REVENUE with at most 2 decimals, stored as integer
 *   cents. JSON cannot carry NaN or Infinity; strings, nulls, 1e308, −0.01 and 0.001 are refused.
 * - No conversion rates: a figure must read the same every time it is read (docs/reports.md).
 */
import { z } from "zod";

/** The largest amount of one conversion (a billion in the goal's currency). */
export const MAX_REVENUE = 1e9;

let codes: Set<string> | null = null;
/** The ISO 4217 codes the runtime knows (workerd and Node carry ICU's list). */
export function isCurrency(code: string): boolean {
  codes ??= new Set(Intl.supportedValuesOf("currency"));
  return /^[A-Z]{3}$/.test(code) && codes.has(code);
}

export const currency = z
  .string()
  .refine(isCurrency, "must be an ISO 4217 currency code in upper case (EUR, USD, JPY)")
  .meta({ description: "An ISO 4217 currency code in upper case.", example: "EUR" });

/** An amount in cents when it is one (finite, 0 … MAX_REVENUE, at most 2 decimals), else null. */
export function amountCents(amount: unknown): number | null {
  if (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0 || amount > MAX_REVENUE) return null;
  const cents = Math.round(amount * 100);
  // 12.34 * 100 is 1233.9999999999998: at most 2 decimals means within float error of whole cents.
  if (Math.abs(cents - amount * 100) > 1e-6 * Math.max(1, amount)) return null;
  return cents;
}

export const revenueAmount = z
  .number()
  .refine((n) => amountCents(n) !== null, `must be a finite number from 0 to ${MAX_REVENUE} with at most 2 decimals`)
  .meta({
    description: `The conversion's amount in the goal's currency: 0 … ${MAX_REVENUE}, at most 2 decimals.`,
    example: 12.5,
  });

/** A conversion's revenue on `/s2s` and `POST /api/v1/events`: refused (422) when wrong. */
export const revenue = z.strictObject({ amount: revenueAmount, currency }).meta({
  description: "The conversion's revenue. The currency must be the goal's (a revenue goal); amounts are never converted.",
});
export type Revenue = z.infer<typeof revenue>;
