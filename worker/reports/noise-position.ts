/**
 * Where a cell's perturbation is read in the public table (noise.ts): a keyed, non-linear mix
 * of the cell's key sum and its true value with two secrets of 31 bits each, drawn once per
 * database (rollup_cell_key: `secret`, which also keys the units, and `position_secret`). Why:
 * with a public table read at a place linear in public and 8-bit unknowns, an attacker who
 * sees a cell at several values enumerates its 256 possible places and solves for the hidden
 * count (issue 36, attacks 1 and 2). Here the place depends on 62 secret bits through two
 * modular squarings, so the readings of one unit set at different values are, to anyone
 * without the secrets, independent draws from the table.
 *
 * Arithmetic modulo P = 2^31 − 1: every product of two residues stays below 2^62, so SQLite's
 * 64-bit integers never overflow into REAL, and TypeScript splits each product so that every
 * intermediate stays an exact double (below 2^53). Both twins must give identical results.
 */

/** The two secrets of a database (rollup_cell_key row 1), each in 1…2^31 − 2. */
export interface NoiseKey {
  secret: number;
  positionSecret: number;
}

const P = 2147483647;
/** Multiplier of the value (the MINSTD generator's): below 2^16, so (value mod P)·C < 2^47. */
const C = 48271;

/** (a·b) mod P for residues a, b < 2^31, with every intermediate below 2^53. */
function mulMod(a: number, b: number): number {
  const high = Math.floor(b / 65536);
  const low = b % 65536;
  return (((a * high) % P) * 65536 + a * low) % P;
}

/** Entries of the public table (noise.ts): a position is the mix's last residue modulo this. */
export const TABLE_SIZE = 4096;

/** The table position (0 … TABLE_SIZE − 1) of a cell with key sum `keySum` (≥ 0, < 2^53) and true value `value` (≥ 0). */
export function noisePosition(keySum: number, value: number, key: NoiseKey): number {
  const x0 = ((keySum % P) + key.positionSecret) % P;
  const x1 = (mulMod(x0, x0) + (((value % P) * C) % P) + key.secret) % P;
  const x2 = (mulMod(x1, x1) + key.positionSecret) % P;
  return x2 % TABLE_SIZE;
}

/** SQL: the database's noise secrets, as scalar subqueries SQLite evaluates once per statement. */
export const CELL_KEY_SECRET_SQL = "(SELECT secret FROM rollup_cell_key WHERE id = 1)";
export const POSITION_SECRET_SQL = "(SELECT position_secret FROM rollup_cell_key WHERE id = 1)";

/** SQL twin of noisePosition over SQL expressions for the key sum and the value. */
export function noisePositionSql(keySum: string, value: string): string {
  const x0 = `(((${keySum}) % ${P} + ${POSITION_SECRET_SQL}) % ${P})`;
  const x1 = `((${x0} * ${x0} % ${P} + ((${value}) % ${P}) * ${C} + ${CELL_KEY_SECRET_SQL}) % ${P})`;
  return `((${x1} * ${x1} % ${P} + ${POSITION_SECRET_SQL}) % ${P} % ${TABLE_SIZE})`;
}

/** SQL: the noise key row, for the places that read it once per report (ReportScope.noiseKey). */
export const NOISE_KEY_SQL = "SELECT secret, position_secret FROM rollup_cell_key WHERE id = 1";

/** The noise key from a NOISE_KEY_SQL row. */
export function noiseKeyOf(row: Record<string, unknown> | undefined): NoiseKey {
  if (!row) throw new Error("rollup_cell_key has no row: the migrations have not run");
  return { secret: Number(row["secret"]), positionSecret: Number(row["position_secret"]) };
}
