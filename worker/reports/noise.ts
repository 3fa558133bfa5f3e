/**
 * The cell key method (the Australian Bureau of Statistics' TableBuilder; the 2021 UK census):
 * every figure built from units is perturbed by a small integer that is a fixed function of
 * the cell's *key* — the sum of its units' keys — and of its count. Why: k-anonymity stops a
 * reader from seeing a small group, but not from padding one with sybils (sessions of its
 * own) until it shows and subtracting them (5 shown − 3 own = 2 victims). With a perturbation
 * that depends on every contributor's secret key, the padded cell reads 5 ± 2 and its own 3
 * leave 0–4 victims; adding or removing a unit changes the noise unpredictably. The same cell
 * always reads the same, so re-reading averages nothing away, and cells of the same units
 * (a day and its only hour) carry the same noise.
 *
 * Keys: a unit is a session id — an HMAC of a salt nobody outside the collector knows, so its
 * first characters are unpredictable — or, without a session, "e:" / "c:" / "v:" and a row id.
 * Either is mixed with a secret drawn once per database (rollup_cell_key), so no key can be
 * computed from outside. A key is a function of the unit alone: the same session has the same
 * key in every cell. No library does this; it is a few lines of integer arithmetic that must
 * give the same result in SQL (the fold, the pages report) and in TypeScript.
 */

/** Perturbations −2…+2; the table holds 256 of them (as digits 0–4), in a fixed shuffle. */
const SPREAD = [26, 51, 102, 51, 26] as const;
const MAX_PERTURBATION = 2;

/** A fixed shuffle (a linear congruential generator with a fixed seed): the same in every install. */
function buildTable(): string {
  const digits: number[] = [];
  SPREAD.forEach((count, digit) => {
    for (let i = 0; i < count; i++) digits.push(digit);
  });
  let state = 0x2545f491;
  for (let i = digits.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const j = state % (i + 1);
    [digits[i], digits[j]] = [digits[j]!, digits[i]!];
  }
  return digits.join("");
}

/** The perturbation table, as the string both TypeScript and SQL index. */
export const NOISE_TABLE = buildTable();

/** Which figure of a cell is perturbed: different columns of one cell get different noise. */
export const NOISE_COLUMN = {
  units: 0,
  events: 1,
  samples: 2,
  good: 3,
  needsImprovement: 4,
  poor: 5,
} as const;
export type NoiseColumn = (typeof NOISE_COLUMN)[keyof typeof NOISE_COLUMN];

function index(keySum: number, value: number, column: number): number {
  return ((keySum % 256) + 97 * (value % 256) + 29 * column) % 256;
}

/**
 * The figure shown for a cell: its value plus the cell's perturbation, never below 1 when the
 * cell has data (a visible cell was seen), 0 stays 0.
 */
export function perturb(value: number, keySum: number, column: NoiseColumn): number {
  if (value <= 0) return value;
  const d = NOISE_TABLE.charCodeAt(index(keySum, value, column)) - 48 - MAX_PERTURBATION;
  return Math.max(1, value + d);
}

/** SQL twin of perturb() over SQL expressions for the value and the key sum. */
export function perturbSql(value: string, keySum: string, column: NoiseColumn): string {
  const at = `((${keySum}) % 256 + 97 * ((${value}) % 256) + ${29 * column}) % 256`;
  return `(CASE WHEN (${value}) <= 0 THEN (${value}) ELSE max(1, (${value}) + unicode(substr('${NOISE_TABLE}', ${at} + 1, 1)) - ${48 + MAX_PERTURBATION}) END)`;
}

const PRIME = 2147483647n;

/** What a unit's key is derived from: a row id for "e:", "c:", "v:" units, a session id's first characters else. */
function unitBase(unit: string): bigint {
  if (unit.charAt(1) === ":") return BigInt(Number.parseInt(unit.slice(2), 10) || 0);
  let base = 0;
  for (let i = 3; i >= 0; i--) base = base * 128 + (unit.length > i ? unit.charCodeAt(i) : 0);
  return BigInt(base);
}

/** A unit's key, 0–65535 (TypeScript twin of unitKeySql, for tests and tools). */
export function unitKey(unit: string, secret: number): number {
  return Number((((unitBase(unit) % PRIME) * BigInt(secret)) % PRIME) % 65536n);
}

/** SQL: the database's key secret. */
export const CELL_KEY_SECRET_SQL = "(SELECT secret FROM rollup_cell_key WHERE id = 1)";

/** SQL: the key of the unit in the text expression `unit` (unitKey's twin). */
export function unitKeySql(unit: string): string {
  const code = (i: number) => `coalesce(unicode(substr(${unit}, ${i + 1}, 1)), 0)`;
  const base =
    `(CASE WHEN substr(${unit}, 2, 1) = ':' THEN CAST(substr(${unit}, 3) AS INTEGER) ` +
    `ELSE ${code(0)} + 128 * ${code(1)} + 16384 * ${code(2)} + 2097152 * ${code(3)} END)`;
  return `(((${base} % 2147483647) * ${CELL_KEY_SECRET_SQL}) % 2147483647 % 65536)`;
}
