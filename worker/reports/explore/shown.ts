/**
 * A filtered cell as a reader sees it: through rule F (privacy/filtered.ts) — hidden below k,
 * true or perturbed, else its perturbed counts — and what a cell with no unit reads: `suppressed`
 * where the site had visitors (nobody matching and fewer than k matching must read the same, or
 * a filter would tell a hidden group from an absent one), an exact 0 where it had none at all.
 */
import type { ReadOnlyDatabase } from "../../lib/read-only";
import { estimated, exact, SUPPRESSED, type Figure } from "../figures";
import { filteredRule, type FilteredRule } from "../privacy";
import type { ReportScope } from "../scope";
import type { Cell } from "./cells";

export interface ExploreOptions {
  /** The rule (the attack test takes parts of it out: privacy/filtered.ts exactFiltered, filteredOnTrueCounts). */
  rule?: FilteredRule;
}

export interface CellFigures {
  units: Figure;
  events: Figure;
}

const HIDDEN: CellFigures = { units: SUPPRESSED, events: SUPPRESSED };

/** A cell's figures; `cell` undefined: no unit matched. `siteHasData`: the site had visitors in the cell's days. */
export function cellFigures(
  cell: Cell | undefined,
  scope: ReportScope,
  eventsCoverUnits: boolean,
  siteHasData: boolean,
  options: ExploreOptions = {},
): CellFigures {
  if (!cell) return siteHasData ? HIDDEN : { units: exact(0), events: exact(0) };
  const rule = options.rule ?? filteredRule;
  if (!scope.noiseKey && rule.perturbs) throw new Error("filtered reports need the noise key");
  const shown = rule.shown(cell, scope.noiseKey!, scope.k, eventsCoverUnits);
  if (!shown) return HIDDEN;
  const figure = rule.perturbs ? estimated : exact;
  return { units: figure(shown.units), events: figure(shown.events) };
}

/** The days of the scope on which the site had visitors (rollup_site_day). */
export async function daysWithData(db: ReadOnlyDatabase, scope: ReportScope): Promise<Set<string>> {
  const rs = await db.query({
    sql: "SELECT day FROM rollup_site_day WHERE site_id = ? AND day >= ? AND day <= ? AND visitors > 0",
    args: [scope.siteId, scope.from, scope.to],
  });
  return new Set(rs.rows.map((r) => String(r.day)));
}
