/**
 * Property test of filters (docs/reports.md "Filters"; attack FX of privacy.property.test.ts):
 * fast-check makes one or two days of sessions in a real libSQL database — country DE/FR/US,
 * source Google/Bing, the pages "/" and "/pricing" (one view each), one goal — with a group of
 * 1 … k − 1 victims in one combination (day one), other people, and the attacker's sybils: any
 * number, anywhere, some padding the victims' combination, some tagged with a campaign of its own
 * (`utm_campaign` c1) so that a cell with `utm_campaign!:c1` is another cell of the same people.
 * A custom property (issue 39; the attacker holds write:goals, so it allows the name) is one more
 * grouping: some people and sybils carry `plan` = pro on every event, victims too or not.
 * The attacker reads every report it can form: the breakdowns by country and by source (with the
 * goal), by the property (`prop:plan`, with the goal), the pages, the daily timeseries and the
 * conversions, under no filter and every combination of one or two (is / is not, on country,
 * source, page, goal, its campaign and the property), for
 * every day and over both; and the unfiltered reports of each day.
 *
 * It then solves everything at once (filter-system.ts). Unknowns: the units of others in each
 * atom (day × country × source × page set × converted × plan: 144). It knows its sybils, the rule's
 * source, the public table's −5 … +5 and nothing secret. Rule F (served): a shown cell of s own
 * units reading S holds max(k, S − 5) − s … S + 5 − s others, a hidden one at most k + 4 − s (its
 * perturbed count fell below k); its pageviews likewise, or at most the shown visitors + 5 where
 * they read as the visitors (eventsCoverUnits). The unfiltered reports' shown figures add ±5
 * intervals (their suppression rules are others', so a hidden one adds nothing). With the noise
 * taken out (exactFiltered) a shown cell is an equation, a hidden one at most k − 1 − s; with the
 * noisy threshold taken out (filteredOnTrueCounts) a hidden cell is at most k − 1 − s.
 *
 * A PIN: every integer solution gives a set of atoms — an atom, a cell, or a cell minus a cell
 * inside it — the same total of 1 … k − 1 others. Served, a pin is excused when it needs a ±5
 * draw: it is gone once the figures that drew ±5 are widened by one (the table's extremes, 8 in
 * 4,096 per draw, are the noise design's stated bound); any other fails. Every served figure is
 * checked against the rule applied to the true cell, and the truth against every constraint, so
 * the attacker's model is the real one.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { breakdownReport } from "../../worker/reports/breakdown";
import { conversionsReport } from "../../worker/reports/conversions";
import { filteredConversionsReport, filteredTimeseriesReport } from "../../worker/reports/explore/series";
import { filteredBreakdownReport, filteredPagesReport } from "../../worker/reports/explore/tables";
import { parseFilter, type Filter } from "../../worker/reports/explore/filters";
import type { Figure } from "../../worker/reports/figures";
import { MAX_PERTURBATION, perturbationAt, unitKey } from "../../worker/reports/noise";
import { noisePosition, type NoiseKey } from "../../worker/reports/noise-position";
import { pagesReport } from "../../worker/reports/pages";
import { exactFiltered, filteredOnTrueCounts, filteredRule, tailSteps, type FilteredRule } from "../../worker/reports/privacy";
import { catchUp } from "../../worker/reports/rollup";
import type { ReportScope } from "../../worker/reports/scope";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { merge, System, widened, type Row } from "./filter-system";
import { addConversions, addEvents, addGoal, addSite, at, clearData, noiseKey, openTestDb, type TestDb } from "./helpers";

const SITE = "site_filter_attack";
const GOAL = "goal_signup";
const DAYS = ["2026-11-20", "2026-11-21"];
const COUNTRIES = ["DE", "FR", "US"] as const;
const SOURCES = ["Google", "Bing"] as const;
/** Page sets as bits: 1 "/", 2 "/pricing", 3 both. */
const PAGE_SETS = [1, 2, 3] as const;
const PATHS = ["/", "/pricing"] as const;
/** Runs of the served property (a quarter of them with the rule taken out): ~1 s each on a quiet machine, every report under 147 filter combinations; FX_RUNS=100 for a long run. */
const RUNS = Number(process.env.FX_RUNS ?? 16);
const ATOMS = DAYS.length * COUNTRIES.length * SOURCES.length * PAGE_SETS.length * 2 * 2;
/** The custom property every event of a unit with `plan` carries. */
const PROPS = '{"plan":"pro"}';

interface Unit {
  day: number;
  country: number;
  source: number;
  pages: number;
  converts: boolean;
  sybil: boolean;
  /** A sybil tagged utm_campaign=c1 (nobody else is: the attacker made the name up). */
  campaign: boolean;
  /** Its events carry the custom property plan = pro. */
  plan: boolean;
}

interface Scenario {
  k: number;
  days: number;
  units: Unit[];
  /** The victims' atom. */
  victims: number;
}

const atomOf = (u: Pick<Unit, "day" | "country" | "source" | "pages" | "converts" | "plan">) =>
  ((((u.day * COUNTRIES.length + u.country) * SOURCES.length + u.source) * PAGE_SETS.length + (u.pages - 1)) * 2 +
    (u.converts ? 1 : 0)) *
    2 +
  (u.plan ? 1 : 0);

/** A representative unit of others for each atom. */
const ATOM_UNITS: Unit[] = Array.from({ length: ATOMS }, (_, a) => {
  const plan = a % 2 === 1;
  const i = Math.floor(a / 2);
  const converts = i % 2 === 1;
  const pages = (Math.floor(i / 2) % 3) + 1;
  const source = Math.floor(i / 6) % 2;
  const country = Math.floor(i / 12) % 3;
  const day = Math.floor(i / 36);
  return { day, country, source, pages, converts, sybil: false, campaign: false, plan };
});

const pageCount = (u: Unit) => (u.pages === 3 ? 2 : 1);

/** The filters the attacker forms: text and which units match it. */
interface Choice {
  dimension: string;
  filter: Filter;
  match(u: Unit): boolean;
}

const parsed = (text: string): Filter => {
  const f = parseFilter(text);
  if ("error" in f) throw new Error(f.error);
  return f;
};

const CHOICES: Choice[] = [
  ...COUNTRIES.map((c, i) => ({ dimension: "country", text: `country:${c}`, match: (u: Unit) => u.country === i })),
  ...SOURCES.map((s, i) => ({ dimension: "source", text: `source:${s}`, match: (u: Unit) => u.source === i })),
  ...PATHS.map((p, i) => ({ dimension: `page ${p}`, text: `page:${p}`, match: (u: Unit) => (u.pages & (1 << i)) !== 0 })),
  { dimension: "goal", text: `goal:${GOAL}`, match: (u: Unit) => u.converts },
  { dimension: "utm_campaign", text: "utm_campaign:c1", match: (u: Unit) => u.campaign },
  { dimension: "plan", text: "prop:plan:pro", not: "prop:plan!:pro", match: (u: Unit) => u.plan },
].flatMap(({ dimension, text, not, match }: { dimension: string; text: string; not?: string; match: (u: Unit) => boolean }) => [
  { dimension, filter: parsed(text), match },
  { dimension, filter: parsed(not ?? text.replace(":", "!:")), match: (u: Unit) => !match(u) },
]);

/** No filter, each one, and each pair on two dimensions (two values of one dimension: empty, or one of them). */
const COMBOS: Choice[][] = [
  [],
  ...CHOICES.map((c) => [c]),
  ...CHOICES.flatMap((a, i) =>
    CHOICES.slice(i + 1)
      .filter((b) => b.dimension !== a.dimension)
      .map((b) => [a, b]),
  ),
];

type Kind = "units" | "events";

/** One figure the attacker read, before it becomes a row. */
interface Reading {
  label: string;
  match(u: Unit): boolean;
  days: number[];
  kind: Kind;
  /** For events: the units of the same cell as shown (the events never read below them). */
  unitsShown?: Figure;
  /** Events per unit: pageviews (the unit's pages) or conversions (one). */
  events: (u: Unit) => number;
  shown: Figure;
  filtered: boolean;
}

let db: TestDb;
let key: NoiseKey;

beforeAll(async () => {
  db = await openTestDb();
  key = await noiseKey(db.client);
});
afterAll(() => db.close());

/** Replaces the database's noise secrets (and the attacker's copy); `load` folds again under them. */
async function setNoiseKey(next: NoiseKey): Promise<void> {
  await db.client.execute({
    sql: "UPDATE rollup_cell_key SET secret = ?, position_secret = ?",
    args: [next.secret, next.positionSecret],
  });
  key = await noiseKey(db.client);
}

const sessionOf = (u: Unit, i: number) => `${u.sybil ? "s" : "v"}${i}x${u.day}`;

async function load(s: Scenario): Promise<void> {
  await clearData(db.client);
  await addSite(db.client, SITE);
  await addGoal(db.client, SITE, GOAL, "Signup");
  await addEvents(
    db.client,
    s.units.flatMap((u, i) =>
      PATHS.filter((_, p) => (u.pages & (1 << p)) !== 0).map((path, p) => ({
        site: SITE,
        session: sessionOf(u, i),
        path,
        ts: at(DAYS[u.day]!, 10, p),
        dims: {
          country: COUNTRIES[u.country]!,
          source: SOURCES[u.source]!,
          ...(u.campaign ? { utm_campaign: "c1" } : {}),
        },
      })),
    ),
  );
  await addConversions(
    db.client,
    s.units.flatMap((u, i) =>
      u.converts ? [{ site: SITE, goal: GOAL, session: sessionOf(u, i), ts: at(DAYS[u.day]!, 10, 30) }] : [],
    ),
  );
  // Every event of a unit with the property carries it, as the collector stores it (events.props).
  const tagged = s.units.flatMap((u, i) => (u.plan ? [sessionOf(u, i)] : []));
  if (tagged.length > 0) {
    await db.client.execute({
      sql: "UPDATE events SET props = ? WHERE session_id IN (SELECT value FROM json_each(?))",
      args: [PROPS, JSON.stringify(tagged)],
    });
  }
  await catchUp(db.client as never);
}

/** Every report the attacker can form under `rule`, as readings. */
async function read(s: Scenario, rule: FilteredRule): Promise<Reading[]> {
  const out: Reading[] = [];
  const periods = s.days === 1 ? [[0]] : [[0], [1], [0, 1]];
  const pageviews = pageCount;
  const one = () => 1;
  for (const days of periods) {
    const scope: ReportScope = {
      siteId: SITE,
      from: DAYS[days[0]!]!,
      to: DAYS[days[days.length - 1]!]!,
      timeZone: "UTC",
      k: s.k,
      noise: true,
      noiseKey: key,
    };
    const name = `${scope.from}…${scope.to}`;
    const add = (r: Omit<Reading, "days" | "filtered">, filtered = true) => {
      if (!r.shown) throw new Error(`no figure for ${r.label}`);
      out.push({ ...r, days, filtered });
    };
    const pair = (
      label: string,
      match: (u: Unit) => boolean,
      figures: { units: Figure; events: Figure },
      events: Reading["events"],
    ) => {
      add({ label, match, kind: "units", events, shown: figures.units });
      add({ label: `${label} (events)`, match, kind: "events", events, shown: figures.events, unitsShown: figures.units });
    };
    for (const combo of COMBOS) {
      const filters = combo.map((c) => c.filter);
      const inCombo = (u: Unit) => combo.every((c) => c.match(u));
      const label = `${name} [${combo.map((c) => `${c.filter.dimension}${c.filter.negated ? "!" : ""}:${c.filter.value}`).join(" ")}]`;
      for (const [dimension, values] of [
        ["country", COUNTRIES],
        ["source", SOURCES],
      ] as const) {
        const report = await filteredBreakdownReport(db.reader, scope, filters, dimension, GOAL, { rule });
        values.forEach((value: string, i: number) => {
          const match = (u: Unit) => inCombo(u) && (dimension === "country" ? u.country : u.source) === i;
          const row = report.rows.find((r) => !r.other && r.value === value);
          const converting = (u: Unit) => match(u) && u.converts;
          if (!row)
            return add({
              label: `${label} ${dimension} ${value}`,
              match,
              kind: "units",
              events: pageviews,
              shown: { value: null, qualifier: "suppressed" },
            });
          pair(`${label} ${dimension} ${value}`, match, { units: row.visitors, events: row.pageviews }, pageviews);
          add({
            label: `${label} ${dimension} ${value} converting`,
            match: converting,
            kind: "units",
            events: one,
            shown: row.converting_sessions!,
          });
        });
        pair(`${label} total`, inCombo, { units: report.totals.visitors, events: report.totals.pageviews }, pageviews);
        add({
          label: `${label} converting`,
          match: (u) => inCombo(u) && u.converts,
          kind: "units",
          events: one,
          shown: report.totals.converting_sessions!,
        });
      }
      // By the property: its one value a row, its units those carrying it, its events their pageviews (each carries it).
      const byPlan = await filteredBreakdownReport(db.reader, scope, filters, "prop:plan", GOAL, { rule });
      const planMatch = (u: Unit) => inCombo(u) && u.plan;
      const proRow = byPlan.rows.find((r) => !r.other && r.value === "pro");
      if (!proRow) {
        add({
          label: `${label} plan pro`,
          match: planMatch,
          kind: "units",
          events: pageviews,
          shown: { value: null, qualifier: "suppressed" },
        });
      } else {
        pair(`${label} plan pro`, planMatch, { units: proRow.visitors, events: proRow.pageviews }, pageviews);
        add({
          label: `${label} plan pro converting`,
          match: (u) => planMatch(u) && u.converts,
          kind: "units",
          events: one,
          shown: proRow.converting_sessions!,
        });
      }
      // A property's totals are all the filtered units' own cell.
      pair(`${label} plan total`, inCombo, { units: byPlan.totals.visitors, events: byPlan.totals.pageviews }, pageviews);
      const pages = await filteredPagesReport(db.reader, scope, filters, undefined, { rule });
      PATHS.forEach((path, p) => {
        const row = pages.rows.find((r) => !r.other && r.path === path);
        add({
          label: `${label} page ${path}`,
          match: (u) => inCombo(u) && (u.pages & (1 << p)) !== 0,
          kind: "units",
          events: one,
          shown: row?.visitors ?? { value: null, qualifier: "suppressed" },
        });
      });
      const series = await filteredTimeseriesReport(db.reader, scope, filters, "day", undefined, { rule });
      series.points.forEach((point, i) =>
        pair(
          `${label} day ${point.local}`,
          (u) => inCombo(u) && u.day === days[i],
          { units: point.visitors, events: point.pageviews },
          pageviews,
        ),
      );
      const conversions = await filteredConversionsReport(db.reader, scope, filters, { rule });
      for (const row of conversions.rows) {
        add({
          label: `${label} conversions`,
          match: (u) => inCombo(u) && u.converts,
          kind: "units",
          events: one,
          shown: row.converting_sessions,
        });
        add({ label: `${label} conversions sessions`, match: inCombo, kind: "units", events: one, shown: row.sessions });
      }
    }
    if (days.length > 1) continue;
    // The unfiltered reports of the day: their own rules hide, the cell key method perturbs.
    const plain = (label: string, match: (u: Unit) => boolean, shown: Figure) =>
      add({ label: `${name} unfiltered ${label}`, match, kind: "units", events: one, shown }, false);
    for (const [dimension, values] of [
      ["country", COUNTRIES],
      ["source", SOURCES],
    ] as const) {
      const report = await breakdownReport(db.reader, scope, dimension, GOAL);
      values.forEach((value: string, i: number) => {
        const match = (u: Unit) => (dimension === "country" ? u.country : u.source) === i;
        const row = report.rows.find((r) => !r.other && r.value === value);
        if (!row) return;
        plain(`${dimension} ${value}`, match, row.visitors);
        plain(`${dimension} ${value} converting`, (u) => match(u) && u.converts, row.converting_sessions!);
      });
    }
    const pages = await pagesReport(db.reader, scope);
    PATHS.forEach((path, p) => {
      const row = pages.rows.find((r) => !r.other && r.path === path);
      if (row) plain(`page ${path}`, (u) => (u.pages & (1 << p)) !== 0, row.visitors);
    });
    const series = await timeseriesReport(db.reader, scope, "day");
    plain("visitors", () => true, series.points[0]!.visitors);
    const conversions = await conversionsReport(db.reader, scope);
    for (const row of conversions.rows) plain("converting", (u) => u.converts, row.converting_sessions);
  }
  return out;
}

/** The draw a cell of these units takes at `value` (noise.ts), as only the server can compute it. */
const drawAt = (keySum: number, value: number) => perturbationAt(noisePosition(keySum, value, key));

/**
 * The attacker's row for a reading, checked against the truth: a filtered figure must be what
 * `rule` shows for its true cell.
 */
function rowOf(s: Scenario, reading: Reading, rule: FilteredRule): Row | null {
  const k = s.k;
  const inCell = (u: Unit) => reading.days.includes(u.day) && reading.match(u);
  const ids = s.units.flatMap((u, i) => (inCell(u) ? [sessionOf(u, i)] : []));
  const cellUnits = s.units.filter(inCell);
  const keySum = ids.reduce((n, id) => n + unitKey(id, key.secret), 0);
  const units = cellUnits.length;
  const events = cellUnits.reduce((n, u) => n + reading.events(u), 0);
  const value = reading.kind === "units" ? units : events;
  const own = cellUnits.filter((u) => u.sybil).reduce((n, u) => n + (reading.kind === "units" ? 1 : reading.events(u)), 0);
  const coefs = new Map<number, number>();
  ATOM_UNITS.forEach((u, a) => {
    if (inCell(u)) coefs.set(a, reading.kind === "units" ? 1 : reading.events(u));
  });
  const shown = reading.shown.value;
  if (reading.filtered && units > 0) {
    const expected = rule.shown({ units, events, keySum }, key, k, true);
    expect([reading.label, shown]).toEqual([reading.label, expected ? expected[reading.kind] : null]);
  }
  const draw = rule.perturbs || !reading.filtered ? drawAt(keySum, value) : 0;
  const extreme = Math.abs(draw) === MAX_PERTURBATION;
  // Rule F's draws have tails past ±5 (privacy/filtered.ts tailSteps): no bound a reader can know.
  // This attacker is told each tail's length instead (a stronger attacker than any real one) and
  // bounds the reading by it; every other reading it bounds by ±5.
  const reach =
    reading.filtered && rule.perturbs && extreme ? MAX_PERTURBATION + tailSteps(keySum, value, key) : MAX_PERTURBATION;
  const row = (lo: number, hi: number): Row => ({ coefs, lo: lo - own, hi: hi - own, extreme, label: reading.label });
  if (reading.shown.qualifier === "exact" && shown === 0) return row(0, 0);
  if (!reading.filtered) {
    // Another report's rule: shown figures are the cell perturbed (floored at 1, or at k).
    if (shown === null) return null;
    return shown <= k ? row(0, shown + MAX_PERTURBATION) : row(shown - MAX_PERTURBATION, shown + MAX_PERTURBATION);
  }
  if (reading.kind === "events") {
    if (shown === null) return null;
    if (!rule.perturbs) return row(shown, shown);
    // Events never read below the shown units: reading as them, they are at most 5 more.
    return shown === reading.unitsShown!.value ? row(0, shown + reach) : row(shown - reach, shown + reach);
  }
  if (shown === null) {
    // Hidden: below k true, or (served) below k perturbed.
    return row(0, rule === filteredRule ? k - 1 + reach : k - 1);
  }
  if (!rule.perturbs) return row(shown, shown);
  if (rule === filteredOnTrueCounts && shown === k) return row(k, k + reach);
  return row(Math.max(k, shown - reach), shown + reach);
}

interface Pin {
  what: string;
  value: number;
  excused: boolean;
}

/** Reads everything under `rule`, solves, and returns the pins of 1 … k − 1 others. */
async function attack(
  s: Scenario,
  rule: FilteredRule,
  /** Only the victims' sets (those holding their atom), until the first pin: the cheap question "are they pinned?". */
  victimsOnly = false,
): Promise<{ pins: Pin[]; readings: number; extremes: number; solves: number }> {
  const readings = await read(s, rule);
  const rows = readings.map((r) => rowOf(s, r, rule)).filter((r): r is Row => r !== null);
  const truth = new Array<number>(ATOMS).fill(0);
  for (const u of s.units) if (!u.sybil) truth[atomOf(u)]!++;
  const system = new System(merge(rows), ATOMS, truth);
  // The attacker's model is the real rule: the truth keeps every constraint.
  expect(system.violated().map((r) => r.label)).toEqual([]);
  const loose = new System(merge(widened(rows)), ATOMS, truth);

  // Targets: each atom, each cell read, each cell minus a cell inside it.
  const targets = new Map<string, { what: string; atoms: Set<number> }>();
  const addTarget = (what: string, atoms: number[]) => {
    const total = atoms.reduce((n, a) => n + truth[a]!, 0);
    if (total < 1 || total > s.k - 1) return;
    if (victimsOnly && !atoms.includes(s.victims)) return;
    const id = [...atoms].sort((a, b) => a - b).join(",");
    if (!targets.has(id)) targets.set(id, { what, atoms: new Set(atoms) });
  };
  addTarget(`atom ${s.victims}`, [s.victims]);
  for (let a = 0; a < ATOMS; a++) addTarget(`atom ${a}`, [a]);
  const cells = system.rows.filter((r) => [...r.coefs.values()].every((c) => c === 1));
  for (const c of cells) addTarget(c.label, [...c.coefs.keys()]);
  for (const outer of cells)
    for (const inner of cells) {
      if (inner.coefs.size >= outer.coefs.size || ![...inner.coefs.keys()].every((a) => outer.coefs.has(a))) continue;
      addTarget(
        `${outer.label} − ${inner.label}`,
        [...outer.coefs.keys()].filter((a) => !inner.coefs.has(a)),
      );
    }
  const pins: Pin[] = [];
  try {
    for (const { what, atoms } of targets.values()) {
      if (!(await system.pinned(atoms))) continue;
      const value = [...atoms].reduce((n, a) => n + truth[a]!, 0);
      pins.push({ what, value, excused: rule.perturbs && !(await loose.pinned(atoms)) });
      if (victimsOnly) break;
    }
  } finally {
    system.dispose();
    loose.dispose();
  }
  return { pins, readings: readings.length, extremes: rows.filter((r) => r.extreme).length, solves: system.solves };
}

/** Random people and sybils, with 1 … k − 1 victims in one combination of day one, padded or not. */
const scenarios = fc
  .record({
    k: fc.integer({ min: 3, max: 5 }),
    days: fc.integer({ min: 1, max: 2 }),
    victim: fc.record({
      country: fc.integer({ min: 0, max: 2 }),
      source: fc.integer({ min: 0, max: 1 }),
      pages: fc.constantFrom(...PAGE_SETS),
      converts: fc.boolean(),
      plan: fc.boolean(),
    }),
    count: fc.integer({ min: 1, max: 4 }),
    pad: fc.integer({ min: 0, max: 8 }),
    padCampaign: fc.integer({ min: 0, max: 2 }),
    people: fc.array(
      fc.record({
        day: fc.integer({ min: 0, max: 1 }),
        country: fc.integer({ min: 0, max: 2 }),
        source: fc.integer({ min: 0, max: 1 }),
        pages: fc.constantFrom(...PAGE_SETS),
        converts: fc.boolean(),
        sybil: fc.boolean(),
        campaign: fc.boolean(),
        plan: fc.boolean(),
      }),
      { maxLength: 16 },
    ),
  })
  .map(({ k, days, victim, count, pad, padCampaign, people }): Scenario => {
    const v = { ...victim, day: 0 };
    const units: Unit[] = [
      ...Array.from({ length: Math.min(count, k - 1) }, () => ({ ...v, sybil: false, campaign: false })),
      // Sybils in the victims' combination: plain, and tagged (a cell with utm_campaign!:c1 drops them).
      ...Array.from({ length: pad }, (_, i) => ({ ...v, sybil: true, campaign: i < padCampaign })),
      ...people.map((p) => ({ ...p, day: Math.min(p.day, days - 1), campaign: p.sybil && p.campaign })),
    ];
    return { k, days, units, victims: atomOf(v) };
  });

const unit = (country: number, source: number, pages: number, more: Partial<Unit> = {}): Unit => ({
  day: 0,
  country,
  source,
  pages,
  converts: false,
  sybil: false,
  campaign: false,
  plan: false,
  ...more,
});

/**
 * k = 5. Six people from DE via Google view "/"; two victims from DE via Bing view both pages;
 * the attacker pads DE via Bing with five sybils on "/". Exact, `country:DE source:Bing` reads 7:
 * 7 − 5 = 2 victims.
 */
const padded: Scenario = {
  k: 5,
  days: 1,
  units: [
    ...Array.from({ length: 6 }, () => unit(0, 0, 1)),
    ...Array.from({ length: 2 }, () => unit(0, 1, 3)),
    ...Array.from({ length: 5 }, () => unit(0, 1, 1, { sybil: true })),
  ],
  victims: atomOf(unit(0, 1, 3)),
};

/**
 * k = 5. Six people from DE via Google view "/"; two victims there too carry the property plan =
 * pro; the attacker allows the name and pads with five sybils carrying it. Exact, `prop:plan`'s
 * row pro reads 7: 7 − 5 = 2 victims, whom nothing else tells apart.
 */
const propertyPadded: Scenario = {
  k: 5,
  days: 1,
  units: [
    ...Array.from({ length: 6 }, () => unit(0, 0, 1)),
    ...Array.from({ length: 2 }, () => unit(0, 0, 1, { plan: true })),
    ...Array.from({ length: 5 }, () => unit(0, 0, 1, { plan: true, sybil: true })),
  ],
  victims: atomOf(unit(0, 0, 1, { plan: true })),
};

/**
 * k = 5. Two victims from DE via Bing on "/"; the attacker has three sybils there, one tagged
 * utm_campaign=c1. On true counts, `country:DE source:Bing` (5 units) shows: at least 2 others;
 * with `utm_campaign!:c1` (4) it is hidden: at most 2 — the same others, pinned to 2.
 */
const walked: Scenario = {
  k: 5,
  days: 1,
  units: [
    ...Array.from({ length: 2 }, () => unit(0, 1, 1)),
    ...Array.from({ length: 3 }, (_, i) => unit(0, 1, 1, { sybil: true, campaign: i === 0 })),
    ...Array.from({ length: 7 }, () => unit(1, 0, 3)),
  ],
  victims: atomOf(unit(0, 1, 1)),
};

describe("FX: every filtered report under every combination of two filters, solved at once", () => {
  it("served (rule F): no set of 1 … k − 1 others is pinned, bar a ±5 draw", async () => {
    let excused = 0;
    let readings = 0;
    let extremes = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(scenarios, async (s) => {
        await load(s);
        const result = await attack(s, filteredRule);
        expect(result.pins.filter((p) => !p.excused)).toEqual([]);
        excused += result.pins.length;
        readings += result.readings;
        extremes += result.extremes;
        runs++;
      }),
      { numRuns: RUNS },
    );
    console.log(`FX served: ${runs} runs, ${readings} readings, ${extremes} readings drew ±5, ${excused} excused pins`);
    // An excused pin needs a reading that drew ±5; one such draw can pin several sets (an atom,
    // the cells holding it, their differences), and one cell is read under many filter sets with
    // the same draw, so neither pins nor readings at ±5 are independent draws to count against the
    // table's 8 in 4,096 (noise.test.ts checks the table itself).
    if (excused > 0) expect(extremes).toBeGreaterThan(0);
  }, 600_000);

  it("with the noise taken out (exactFiltered), pins the padded victims; served, it does not", async () => {
    await load(padded);
    const exact = await attack(padded, exactFiltered);
    expect(exact.pins).toContainEqual({ what: `atom ${padded.victims}`, value: 2, excused: false });
    const served = await attack(padded, filteredRule);
    expect(served.pins.filter((p) => !p.excused)).toEqual([]);
  }, 120_000);

  it("by a custom property: with the noise taken out (exactFiltered), pins the victims the sybils padded; served, it does not", async () => {
    await load(propertyPadded);
    const exact = await attack(propertyPadded, exactFiltered);
    expect(exact.pins).toContainEqual({ what: `atom ${propertyPadded.victims}`, value: 2, excused: false });
    const served = await attack(propertyPadded, filteredRule);
    expect(served.pins.filter((p) => !p.excused)).toEqual([]);
  }, 120_000);

  it("with the noise taken out, pins the victims in most generated runs (and the threshold on true counts alone: some)", async () => {
    let exact = 0;
    let sharp = 0;
    let runs = 0;
    // A count over generated runs is a statistic: a fixed seed and a dozen runs make it the same
    // every time (4 fresh runs pinned 1 once in CI, where 86 of 95 pin). The served test above
    // keeps drawing fresh scenarios.
    await fc.assert(
      fc.asyncProperty(scenarios, async (s) => {
        await load(s);
        runs++;
        if ((await attack(s, exactFiltered, true)).pins.length > 0) exact++;
        if ((await attack(s, filteredOnTrueCounts, true)).pins.length > 0) sharp++;
      }),
      { numRuns: 12, seed: 38 },
    );
    console.log(`FX rule taken out: the victims pinned in ${exact} of ${runs} runs exact, ${sharp} on true counts`);
    // Without noise the pins depend on the true counts alone: the same 11 of these 12 every time.
    expect([exact, runs]).toEqual([11, 12]);
  }, 600_000);

  it("with the threshold on true counts (filteredOnTrueCounts), a sybil one cell apart walks the victims' count; served, it does not", async () => {
    // The walk reads perturbed values, so whether it pins depends on the draws: it did under 59
    // of 60 keys tried (once in CI, a fresh key's draw hid it). A fixed key makes it the same
    // every run; the served property above keeps the database's own random key.
    const drawn = key;
    await setNoiseKey({ secret: 829348952, positionSecret: 15485864 });
    try {
      await load(walked);
      const sharp = await attack(walked, filteredOnTrueCounts);
      expect(sharp.pins).toContainEqual({ what: `atom ${walked.victims}`, value: 2, excused: false });
      const served = await attack(walked, filteredRule);
      expect(served.pins.filter((p) => !p.excused)).toEqual([]);
    } finally {
      await setNoiseKey(drawn);
    }
  }, 120_000);
});
