/**
 * Writing and removing imported days (lib/schema/imports.ts). A day is replaced whole: its
 * totals and every cell of it, in the statements of one batch, so a day is never half one
 * import and half another, and writing the same day twice leaves what writing it once left.
 */
import type { InStatement } from "@libsql/client/web";
import { CELL_KEY_SECRET_SQL } from "../../reports/noise";
import type { ImportedDay } from "./model";

/**
 * FNV-1a (32 bits) of a cell's identity: where its noise key comes from. The identity is public
 * (site, day, report, label); the database's secret, mixed in by SQL (importedKeySql), is not,
 * so no reader can compute a key. Written by hand: a dozen lines, and it must be stable forever.
 */
export function cellIdentityHash(siteId: string, day: string, dimension: string, value: string): number {
  let hash = 0x811c9dc5;
  for (const ch of `${siteId}\u0000${day}\u0000${dimension}\u0000${value}`) {
    hash ^= ch.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/**
 * SQL: a key (0–65535) from an identity hash bound at `?`, mixed with the secret as a unit's key
 * is (reports/noise.ts unitKeySql): one imported cell is one "unit" of its own. The CAST: a
 * JavaScript number is bound as REAL, and SQLite's `%` of a REAL is a REAL, whose product with
 * the secret (up to 2^62) would lose its low bits.
 */
const IMPORTED_KEY_SQL = `(((CAST(? AS INTEGER) % 2147483647) * ${CELL_KEY_SECRET_SQL}) % 2147483647 % 65536)`;

/** Cells per INSERT: 7 parameters each, well under SQLite's 32,766. */
const CELLS_PER_INSERT = 200;

/** The statements that make `day` the import's: the day's totals and cells, replacing any earlier ones. */
export function replaceDayStatements(siteId: string, importId: string, day: ImportedDay): InStatement[] {
  const { totals } = day;
  const statements: InStatement[] = [
    { sql: "DELETE FROM imported_cells WHERE site_id = ? AND day = ?", args: [siteId, day.day] },
    {
      sql:
        "INSERT OR REPLACE INTO imported_days (site_id, day, import_id, visitors, pageviews, visits, bounces, visit_duration, key_sum) " +
        `VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${IMPORTED_KEY_SQL})`,
      args: [
        siteId,
        day.day,
        importId,
        totals.visitors,
        totals.pageviews,
        totals.visits,
        totals.bounces,
        totals.visitDuration,
        cellIdentityHash(siteId, day.day, "", ""),
      ],
    },
  ];
  // Many cells to a statement: a statement's text is sent with every one, and one per cell made
  // a busy day's batch too large for the embedded server's 10 MiB request (found by bench imports).
  for (let i = 0; i < day.cells.length; i += CELLS_PER_INSERT) {
    const cells = day.cells.slice(i, i + CELLS_PER_INSERT);
    statements.push({
      sql:
        "INSERT INTO imported_cells (site_id, day, dimension, value, visitors, pageviews, key_sum) VALUES " +
        cells.map(() => `(?, ?, ?, ?, ?, ?, ${IMPORTED_KEY_SQL})`).join(", "),
      args: cells.flatMap((cell) => [
        siteId,
        day.day,
        cell.dimension,
        cell.value,
        cell.visitors,
        cell.pageviews,
        cellIdentityHash(siteId, day.day, cell.dimension, cell.value),
      ]),
    });
  }
  return statements;
}

/** The statements that remove an import: the days it still owns, their cells, and its record. */
export function deleteImportStatements(siteId: string, importId: string): InStatement[] {
  return [
    {
      sql: "DELETE FROM imported_cells WHERE site_id = ? AND day IN (SELECT day FROM imported_days WHERE site_id = ? AND import_id = ?)",
      args: [siteId, siteId, importId],
    },
    { sql: "DELETE FROM imported_days WHERE site_id = ? AND import_id = ?", args: [siteId, importId] },
    { sql: "DELETE FROM imports WHERE site_id = ? AND id = ?", args: [siteId, importId] },
  ];
}

/** The statements that delete a site's imports (with the site; a time zone change keeps them). */
export function deleteSiteImportsStatements(siteId: string): InStatement[] {
  return ["imported_cells", "imported_days", "imports"].map((table) => ({
    sql: `DELETE FROM ${table} WHERE site_id = ?`,
    args: [siteId],
  }));
}
