/**
 * k, and the atom rule every other privacy rule builds on (rule "atoms" in index.ts): an atom
 * or cell is shown only when at least k distinct units (sessions) are in it. k comes from the
 * operator's WREN_K_ANONYMITY and is never below 2, since a "group" of one is a person.
 */

export const DEFAULT_K = 5;
export const MIN_K = 2;

/** k from WREN_K_ANONYMITY: default 5, never below 2 (smaller values are raised to 2). */
export function kAnonymity(setting: string | null | undefined): number {
  if (setting === undefined || setting === null || setting.trim() === "") return DEFAULT_K;
  const k = Number(setting);
  if (!Number.isInteger(k)) return DEFAULT_K;
  return Math.max(MIN_K, k);
}

/** An atom or cell is shown only when at least k units are in it. */
export function enoughUnits(units: number, k: number): boolean {
  return units >= k;
}

/** A site-day atom (the units seen that day) is the root of its day. */
export function siteDayVisible(units: number, k: number): boolean {
  return enoughUnits(units, k);
}
