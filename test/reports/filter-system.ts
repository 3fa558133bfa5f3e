/**
 * The solver of attack FX (privacy-filters.property.test.ts): every figure the attacker reads is a
 * linear constraint on the unknown counts of other people's units in each atom (a combination of
 * dimension values, page set, conversion and day) — an interval for a noisy figure, an equation
 * for an exact one, an upper bound for a hidden cell — and the attacker asks, for a set of atoms,
 * the least and the greatest total every constraint allows, all at once. It pins the set when
 * both are the same.
 *
 * Integer bounds come from HiGHS (the `highs` package, MIT: the Edinburgh MIP solver compiled to
 * WebAssembly, run in process). A MIP per bound is ~100 ms here, so each target is first screened
 * by moves from the truth (which is feasible: the test checks it): ±1 on one of its atoms, or ±1
 * on one and ∓1 on an atom outside. Any feasible move is an integer solution with another total,
 * so the target is not pinned and needs no solve; only the rest go to the MIP.
 */
import loadHighs from "highs";

/** lo ≤ Σ coef·x ≤ hi over the atoms' unknowns. `extreme`: the figure drew ±5 (its interval end may be sharp). */
export interface Row {
  coefs: Map<number, number>;
  lo: number;
  hi: number;
  extreme: boolean;
  label: string;
}

/** The most units of others an atom can hold in the attacker's model: more than any run has. */
export const MAX_ATOM = 60;

type Highs = Awaited<ReturnType<typeof loadHighs>>;
let highs: Promise<Highs> | undefined;

/** Rows with the same coefficients are one constraint: their intervals intersect. */
export function merge(rows: Row[]): Row[] {
  const byKey = new Map<string, Row>();
  for (const row of rows) {
    const key = [...row.coefs].sort((a, b) => a[0] - b[0]).join(";");
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, { ...row });
    else {
      // A sharp end that came from a ±5 draw keeps the flag: the widened system drops it.
      if (row.lo > seen.lo || row.hi < seen.hi) seen.extreme = seen.extreme || row.extreme;
      seen.lo = Math.max(seen.lo, row.lo);
      seen.hi = Math.min(seen.hi, row.hi);
    }
  }
  return [...byKey.values()];
}

/** The system with every figure that drew ±5 widened by one: a ±5 draw no longer makes an end sharp. */
export function widened(rows: Row[]): Row[] {
  return rows.map((r) => (r.extreme ? { ...r, lo: r.lo - 1, hi: r.hi + 1 } : r));
}

export class System {
  private readonly byAtom: number[][];
  private readonly activity: number[];

  constructor(
    readonly rows: Row[],
    readonly atoms: number,
    readonly truth: number[],
  ) {
    this.byAtom = Array.from({ length: atoms }, () => []);
    rows.forEach((r, i) => {
      for (const a of r.coefs.keys()) this.byAtom[a]!.push(i);
    });
    this.activity = rows.map((r) => [...r.coefs].reduce((n, [a, c]) => n + c * truth[a]!, 0));
  }

  /** The rows the truth breaks (none: the attacker's model is the real rule). */
  violated(): Row[] {
    return this.rows.filter((r, i) => this.activity[i]! < r.lo || this.activity[i]! > r.hi);
  }

  /** Whether moving the truth by `da` on atom a and `db` on atom b keeps every row. */
  private movable(a: number, da: number, b: number, db: number): boolean {
    if (this.truth[a]! + da < 0 || this.truth[a]! + da > MAX_ATOM) return false;
    if (db !== 0 && (this.truth[b]! + db < 0 || this.truth[b]! + db > MAX_ATOM)) return false;
    const touched = db === 0 ? this.byAtom[a]! : new Set([...this.byAtom[a]!, ...this.byAtom[b]!]);
    for (const i of touched) {
      const r = this.rows[i]!;
      const v = this.activity[i]! + (r.coefs.get(a) ?? 0) * da + (db === 0 ? 0 : (r.coefs.get(b) ?? 0) * db);
      if (v < r.lo || v > r.hi) return false;
    }
    return true;
  }

  /** An integer solution with another total of `target` one move from the truth. */
  private escapes(target: Set<number>): boolean {
    for (const a of target) for (const d of [1, -1]) if (this.movable(a, d, a, 0)) return true;
    for (const a of target)
      for (let b = 0; b < this.atoms; b++) {
        if (target.has(b)) continue;
        for (const d of [1, -1]) if (this.movable(a, d, b, -d)) return true;
      }
    return false;
  }

  /** Whether every integer solution gives `target` (a set of atoms) the truth's total. */
  async pinned(target: Set<number>): Promise<boolean> {
    if (this.escapes(target)) return false;
    const t = [...target].reduce((n, a) => n + this.truth[a]!, 0);
    const [lo, hi] = await this.bounds(target);
    if (lo > t || hi < t) throw new Error(`the truth ${t} is outside the solver's bounds ${lo}…${hi}`);
    return lo === hi;
  }

  /** The least and greatest integer total of `target` (HiGHS; one model per system, its costs changed per target). */
  async bounds(target: Set<number>): Promise<[number, number]> {
    highs ??= loadHighs();
    const h = await highs;
    this.model ??= this.build(h);
    const model = this.model;
    for (let a = 0; a < this.atoms; a++) model.changeColCost(a, target.has(a) ? 1 : 0);
    const solve = (sense: typeof h.constants.objectiveSense.minimize) => {
      model.changeObjectiveSense(sense);
      model.run();
      if (model.getModelStatus() !== h.constants.modelStatus.optimal) throw new Error(`HiGHS: status ${model.getModelStatus()}`);
      return Math.round(model.getObjectiveValue());
    };
    this.solves += 2;
    return [solve(h.constants.objectiveSense.minimize), solve(h.constants.objectiveSense.maximize)];
  }

  /** MIP solves so far (each bound one). */
  solves = 0;
  private model: ReturnType<Highs["createModel"]> | undefined;

  private build(h: Highs): ReturnType<Highs["createModel"]> {
    const model = h.createModel();
    model.options.set({ output_flag: false });
    for (let a = 0; a < this.atoms; a++) {
      model.addVar(0, MAX_ATOM);
      model.changeColIntegrality(a, h.constants.variableType.integer);
    }
    for (const r of this.rows) {
      const entries = [...r.coefs].sort((x, y) => x[0] - y[0]);
      model.addRow(Number.isFinite(r.lo) ? r.lo : -h.infinity, Number.isFinite(r.hi) ? r.hi : h.infinity, {
        indices: entries.map((e) => e[0]),
        values: entries.map((e) => e[1]),
      });
    }
    return model;
  }

  /** Frees the solver's model (WebAssembly memory is not garbage-collected). */
  dispose(): void {
    this.model?.dispose();
    this.model = undefined;
  }
}
