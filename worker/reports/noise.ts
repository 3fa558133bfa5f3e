/**
 * The cell key method (the Australian Bureau of Statistics' TableBuilder; the 2021 UK census):
 * every figure built from units is perturbed by a small integer that is a fixed function of
 * the cell's *key* — the sum of its units' keys — and of its count. Why: k-anonymity stops a
 * reader from seeing a small group, but not from padding one with sybils (sessions of its
 * own) until it shows and subtracting them (5 shown − 3 own = 2 victims). With a perturbation
 * that depends on every contributor's secret key, the padded cell reads 5 ± 3 and its own 3
 * leave 0–5 victims; adding or removing a unit changes the noise unpredictably. The same cell
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
import { CELL_KEY_SECRET_SQL, noisePosition, noisePositionSql, type NoiseKey } from "./noise-position";

export { CELL_KEY_SECRET_SQL, NOISE_KEY_SQL, noiseKeyOf, TABLE_SIZE, type NoiseKey } from "./noise-position";

/**
 * Perturbations −5…+5; the table holds 4096 of them, in a fixed shuffle, as the characters
 * "0"…":" (code − 48 − 5 is the perturbation). Counts of −5…+5: 4, 16, 102, 369, 901, 1312,
 * 901, 369, 102, 16, 4 (mean 0, variance 2·3651/4096 ≈ 1.78, the old ±3 table's was 1.72).
 * Why long tails: a bounded noise read N times pins the true value once its extremes show up.
 * With ±3 at 3 % each, 16 readings of a group (its page-day cells, docs/reports.md) made the
 * best attacker certain about a quarter of the time; here the extremes are 1 in 1024 each, so
 * certainty needs a draw that rare. bench/noise-attack.ts measures the best attacker.
 */
export const SPREAD = [4, 16, 102, 369, 901, 1312, 901, 369, 102, 16, 4] as const;
export const MAX_PERTURBATION = 5;

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
  return String.fromCharCode(...digits.map((digit) => 48 + digit));
}

/** The perturbation table, as the string both TypeScript and SQL index. Public: the secret is where it is read. */
export const NOISE_TABLE = buildTable();

/**
 * The table as an SQL blob literal: substr() of a blob indexes bytes directly, where substr() of
 * a text scans its characters from the start (UTF-8), which over 4,096 places made every
 * perturbed figure of a report cost a scan (the 30-day pages report took 135 ms instead of 70).
 */
const NOISE_TABLE_BLOB = `X'${[...NOISE_TABLE].map((c) => c.charCodeAt(0).toString(16).padStart(2, "0")).join("")}'`;

/** The perturbation at a table position (0 … TABLE_SIZE − 1). */
export function perturbationAt(position: number): number {
  return NOISE_TABLE.charCodeAt(position) - 48 - MAX_PERTURBATION;
}

/**
 * The figure shown for a cell: its value plus the perturbation at the cell's keyed position
 * (noise-position.ts), never below 1 when the cell has data (a visible cell was seen), 0
 * stays 0. One perturbation per unit set and true value: no argument says which figure it is,
 * so a page-day's visitors and pageviews read the same when they are equal, and a vitals
 * atom's sessions the same as its page's visitors when they are the same sessions.
 */
export function perturb(value: number, keySum: number, key: NoiseKey): number {
  if (value <= 0) return value;
  const d = perturbationAt(noisePosition(keySum, value, key));
  return Math.max(1, value + d);
}

/** SQL twin of perturb() over SQL expressions for the value and the key sum. */
export function perturbSql(value: string, keySum: string): string {
  const at = noisePositionSql(keySum, value);
  return `(CASE WHEN (${value}) <= 0 THEN (${value}) ELSE max(1, (${value}) + unicode(CAST(substr(${NOISE_TABLE_BLOB}, ${at} + 1, 1) AS TEXT)) - ${48 + MAX_PERTURBATION}) END)`;
}

/**
 * Post-processing, so that no row contradicts itself (issue 36, item 7), applied to every
 * counted cell by every report (atoms.ts shownCell, pages.ts, vitals.ts through the SQL twin):
 * - a cell of at least k units never reads below k (a shown atom has k; the noise must not
 *   make it read like the suppressed rows beside it). Decided on the true count, which the
 *   cell's visibility already discloses as "at least k", so it tells nothing more;
 * - where every unit has at least one event by construction (`eventsCoverUnits`: a page-day's
 *   pageviews, a goal-day's conversions, a vitals atom's samples), the events never read below
 *   the units as shown.
 * Each cell is clamped on its own, so sums stay sums of shown atoms.
 */
export function shownCounts(
  cell: { units: number; events: number; keySum: number },
  key: NoiseKey,
  k: number,
  eventsCoverUnits: boolean,
  /** The perturbation (filtered cells add tails to it: privacy/filtered.ts). */
  perturbation: (value: number, keySum: number, key: NoiseKey) => number = perturb,
): { units: number; events: number } {
  const units = atLeastK(perturbation(cell.units, cell.keySum, key), cell.units, k);
  const events = perturbation(cell.events, cell.keySum, key);
  return { units, events: eventsCoverUnits && cell.events > 0 ? Math.max(units, events) : events };
}

function atLeastK(shown: number, value: number, k: number): number {
  return value >= k ? Math.max(k, shown) : shown;
}

/**
 * SQL twin of shownCounts' units over SQL expressions (k: an SQL expression too, e.g. "?1").
 * The floor is a CASE and the perturbation appears once: the table literal is 4 KB, and each
 * copy of it lengthens the statement (units are never negative, so a floor of 0 is no floor).
 */
export function shownUnitsSql(units: string, keySum: string, k: string): string {
  return `max(CASE WHEN (${units}) >= (${k}) THEN (${k}) ELSE 0 END, ${perturbSql(units, keySum)})`;
}

/** SQL twin of shownCounts' events where every unit has an event: at least the shown units. */
export function shownEventsSql(events: string, units: string, keySum: string, k: string): string {
  return `(CASE WHEN (${events}) > 0 THEN max(${shownUnitsSql(units, keySum, k)}, ${perturbSql(events, keySum)}) ELSE (${events}) END)`;
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

/** SQL: the key of the unit in the text expression `unit` (unitKey's twin). */
export function unitKeySql(unit: string): string {
  const code = (i: number) => `coalesce(unicode(substr(${unit}, ${i + 1}, 1)), 0)`;
  const base =
    `(CASE WHEN substr(${unit}, 2, 1) = ':' THEN CAST(substr(${unit}, 3) AS INTEGER) ` +
    `ELSE ${code(0)} + 128 * ${code(1)} + 16384 * ${code(2)} + 2097152 * ${code(3)} END)`;
  return `(((${base} % 2147483647) * ${CELL_KEY_SECRET_SQL}) % 2147483647 % 65536)`;
}
