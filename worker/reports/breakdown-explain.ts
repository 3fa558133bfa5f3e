/**
 * Why a big breakdown cell is hidden (the breakdown side of privacy/explain.ts): for every value
 * cell of at least 2k units in a shown day that rule 9 hides, the rule and the small group it
 * protects, from the same decided cells the report shows (dimensionDays). For tests and
 * debugging; no report shows it.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import { dimensionDays } from "./breakdown";
import { NONE, SMALL, type DayCell } from "./day-partition";
import type { Dimension } from "./dimensions";
import { PAGE_ATOMS_SQL, type HiddenCell } from "./privacy";
import type { ReportScope } from "./scope";

/** Every hidden cell of `dimension` with at least 2k units in a shown day, with the group it protects. */
export async function explainHiddenValues(db: ReadOnlyDatabase, scope: ReportScope, dimension: Dimension): Promise<HiddenCell[]> {
  const k = scope.k;
  const { atoms, days } = await dimensionDays(db, scope, dimension, []);
  const pages = new Map<string, { units: number; visible: boolean }>();
  if (dimension === "entry_page" || dimension === "exit_page") {
    const rs = await db.query({
      sql: `WITH ${PAGE_ATOMS_SQL} SELECT day, path, visitors, visible FROM page_atoms`,
      args: [k, scope.siteId, scope.from, scope.to],
    });
    for (const r of rs.rows)
      pages.set(`${r.day}\u0000${r.path}`, { units: Number(r.visitors), visible: Number(r.visible) === 1 });
  }
  // Hidden for its complement against its page: the partition must not pin it down either.
  const pageRest = (day: string, c: DayCell) => {
    const page = c.key === NONE || c.key === SMALL ? undefined : pages.get(`${day}\u0000${c.key}`);
    return page?.visible && page.units - c.units > 0 && page.units - c.units < k ? page.units - c.units : undefined;
  };
  const out: HiddenCell[] = [];
  for (const [day, decided] of days) {
    if (!atoms.siteDays.get(day)?.visible) continue;
    const cells = [...decided.values.values()];
    for (const c of cells) {
      if (c.visible || c.key === SMALL || c.units < 2 * k) continue;
      const cell = `${dimension}:${c.key === NONE ? "null" : c.key}`;
      const head = { day, cell, units: c.units };
      const rest = pageRest(day, c);
      if (rest !== undefined) {
        out.push({
          ...head,
          rule: "entry-exit-complement",
          group: { what: `who viewed ${c.key} but ${dimension === "entry_page" ? "entered" : "left"} elsewhere`, units: rest },
          because: `hides ${cell} (${c.units}) because the page ${c.key} (${c.units + rest}) − it = ${rest} session(s)`,
        });
        continue;
      }
      const others = cells.filter((o) => o !== c && !o.visible && o.units > 0);
      const names = others.map(
        (o) =>
          `${o.key === SMALL ? "values under k" : o.key === NONE ? "null" : o.key} (${o.units}${pageRest(day, o) === undefined ? "" : ", hidden for its complement"})`,
      );
      const free = others.reduce((n, o) => n + (pageRest(day, o) === undefined ? o.units : 0), 0);
      out.push({
        ...head,
        rule: "cover",
        group: { what: `the sessions of ${names.join(", ")}`, atMost: free },
        because: `hides ${cell} (${c.units}) because the day − the shown cells would be ${names.join(" + ")}: ${free} session(s) outside cells hidden for a complement, fewer than ${k}`,
      });
    }
  }
  return out;
}
