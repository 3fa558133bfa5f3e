/**
 * The median visit duration of each group of the filtered units (the query API's
 * `visit_duration`), reduced by SQLite to one row per group: the bucket holding the median, the
 * visits below and in it, the group's visits, and per block level (histogram.ts BLOCK_LEVELS)
 * the visits in the median bucket's block — all histogram.ts `durationMedianAt` needs. Shipping
 * each group's histogram instead (groups × duration buckets) grows past the Hrana response
 * limit on a large site grouped by page and country.
 */
import type { ReadOnlyDatabase } from "../../lib/read-only";
import { BLOCK_LEVELS, quantileRankSql, type QuantileRank } from "../histogram";
import type { ReportScope } from "../scope";
import { keyPart, type CellKey } from "./cells";
import type { Statement } from "./units";

/** A group's median rank and block counts, by the JSON of its keys' values (as run.ts keys its cells). */
export type GroupMedians = Map<string, { rank: QuantileRank; blocks: number[] }>;

const valueOf = (v: unknown): string | number | null =>
  v === null || v === undefined ? null : typeof v === "number" || typeof v === "bigint" ? Number(v) : String(v);

export async function readDurationMedians(
  db: ReadOnlyDatabase,
  scope: ReportScope,
  units: Statement,
  keys: readonly CellKey[],
): Promise<GroupMedians> {
  const parts = keys.map((key, at) => keyPart(key, scope, at));
  const names = keys.map((_, i) => `k${i}`);
  const sameGroup = names.length > 0 ? names.map((k) => `h.${k} IS r.${k}`).join(" AND ") : "1";
  const perLevel = BLOCK_LEVELS.map((l) => `sum(CASE WHEN h.bucket >> ${l} = r.bucket >> ${l} THEN h.n ELSE 0 END) AS l${l}`);
  const rs = await db.query({
    sql:
      `WITH u AS MATERIALIZED (${units.sql}), ` +
      `h AS MATERIALIZED (SELECT ${[...parts.map((p, i) => `${p.select} AS k${i}`), `${keyPart("duration", scope).select} AS bucket`, "count(*) AS n"].join(", ")} ` +
      `FROM u ${parts.map((p) => p.join ?? "").join(" ")} GROUP BY ${[...names, "bucket"].join(", ")}), ` +
      "spans AS (SELECT * FROM h WHERE bucket >= 0), " +
      `${quantileRankSql("spans", names, 1, 2)} ` +
      `SELECT ${[...names.map((k) => `r.${k} AS ${k}`), "r.bucket AS bucket", "r.n AS n", "r.below AS below", "r.total AS total", ...perLevel].join(", ")} ` +
      `FROM r JOIN h ON ${sameGroup} GROUP BY ${names.length > 0 ? names.map((k) => `r.${k}`).join(", ") : "r.bucket"}`,
    args: [...units.args, ...parts.flatMap((p) => p.joinArgs ?? [])],
  });
  const medians: GroupMedians = new Map();
  for (const r of rs.rows) {
    medians.set(JSON.stringify(names.map((k) => valueOf(r[k]))), {
      rank: { bucket: Number(r.bucket), below: Number(r.below), n: Number(r.n), total: Number(r.total) },
      blocks: BLOCK_LEVELS.map((l) => Number(r[`l${l}`] ?? 0)),
    });
  }
  return medians;
}
