/**
 * The `imported` field of the reports that read imported days (pages, breakdown, timeseries,
 * aggregate): whether this answer includes them and, when not, why — for the report's period
 * and, with `compare`, for the earlier one, which is read by the same rule.
 */
import type { ComparisonHead } from "../compare";
import type { PreparedReport } from "../request";
import type { ReportScope } from "../scope";
import { IMPORTED_RULE, type ImportedExclusion } from "./rule";
import type { ImportedMeta } from "./coverage";

/** Why a report leaves imported days out; null: it reads them. */
export function importedExclusion(asked: {
  filter?: unknown;
  hours?: boolean;
  interval?: string;
  goal?: string;
  report?: boolean;
}): ImportedExclusion | null {
  if (asked.report === false) return "report";
  if (asked.hours || asked.interval === "hour") return "interval";
  if (asked.filter !== undefined) return "filters";
  if (asked.goal !== undefined) return "goal";
  return null;
}

/** The scope that reads imported days when the report includes them. */
export function importedScope(scope: ReportScope, exclusion: ImportedExclusion | null): ReportScope {
  return exclusion === null ? { ...scope, imported: IMPORTED_RULE } : scope;
}

/** `body` with its `imported` field (and its comparison's) as this answer reads them. */
export function withImportedHead<B extends { comparison?: ComparisonHead }>(
  body: B,
  p: PreparedReport,
  exclusion: ImportedExclusion | null,
  collectedOnly?: string[],
): B & { imported?: ImportedMeta } {
  const { imported: _default, ...rest } = body as B & { imported?: ImportedMeta };
  const out = { ...rest, ...p.imported(exclusion, collectedOnly) } as B & { imported?: ImportedMeta };
  const comparison = body.comparison;
  if (comparison) {
    const earlier = p.shifted(comparison.from, comparison.to).imported(exclusion, collectedOnly);
    if (earlier.imported) out.comparison = { ...comparison, ...earlier };
  }
  return out;
}
