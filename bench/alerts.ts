/**
 * Alert evaluation at 1 M events: 100 sites whose traffic follows Zipf (the largest has about a
 * fifth of it, the smallest a few dozen sessions a day), in three time zones, three goals each,
 * 30 days up to now; folded by the real catch-up and published as the publisher would. Then
 * 1,000 threshold rules — a site's pageviews or visitors or a goal's conversions, below or above,
 * windows of 1 to 168 hours — made through the domain's createRule, and full passes of
 * worker/alerts/evaluate.ts evaluateRules timed over the embedded libSQL server (Hrana over HTTP,
 * as the alerts worker reads it), the holder and `now` fixed. The server runs alone, not under
 * `wren start`: a running service's own scheduler would hold the evaluator lease.
 *
 * The first pass records the rules' transitions (one transaction each, with its outbox row); the
 * passes after it change no state and are the steady cost, printed as the median of several.
 * Beside it: the same figures read one rule at a time (what reading each site's cells once
 * saves), and a pass against the evaluation interval.
 *
 *   npm run bench alerts                        (1 M events; about a minute on 2 cores)
 *   BENCH_ALERT_SCALES=200000 npm run bench alerts
 */
import { createClient } from "@libsql/client";
import Database from "libsql";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { applyMigrations, openDatabase } from "../cli/database";
import { loadSettings } from "../cli/settings";
import { startHranaServer } from "../server/hrana/index";
import { siteReadings } from "../worker/alerts/figures";
import { evaluateRules, type EvaluationOptions } from "../worker/alerts/evaluate";
import { DEFAULT_INTERVAL_MS } from "../worker/alerts/env";
import { createRule, loadRules, type AlertRule } from "../worker/domain/alert-rules";
import { readOnly } from "../worker/lib/read-only";
import { DEFAULT_K } from "../worker/reports/privacy";
import { publishStatement } from "../worker/reports/publication";
import { PUBLISH_GRACE_MS } from "../worker/reports/publisher";
import { catchUp } from "../worker/reports/rollup";
import { printJson } from "./load";
import { HOUR_WEIGHTS, prng, zipf } from "./reports";
import { benchScales, inScratchFolder } from "./scratch";

const SITES = 100;
const RULES = 1_000;
const DAYS = 30;
const PAGES_PER_SITE = 200;
const ZONES = ["UTC", "Europe/Berlin", "America/New_York"];
const GOALS = ["signup", "trial", "buy"];
const PASSES = 11;
const PER_RULE_PASSES = 3;
const EVENTS_PER_TRANSACTION = 100_000;
const HOUR = 3_600_000;


const siteId = (i: number) => `site_bench${String(i).padStart(3, "0")}`;
const goalId = (i: number, g: number) => `goal_bench${String(i).padStart(3, "0")}_${GOALS[g]}`;

interface Generated {
  events: number;
  sessions: number;
  conversions: number;
}

/** Writes `target` events over the DAYS days before `now` into the file, with their sessions' conversions. */
export function generate(file: string, target: number, now: number): Generated {
  const random = prng(7);
  const site = zipf(random, SITES);
  const page = zipf(random, PAGES_PER_SITE);
  const hourCdf: number[] = [];
  HOUR_WEIGHTS.reduce((sum, w) => (hourCdf.push(sum + w), sum + w), 0);
  const pickHour = () => {
    const r = random() * hourCdf[hourCdf.length - 1]!;
    return hourCdf.findIndex((c) => c >= r);
  };
  const firstDay = Math.floor(now / 86_400_000) * 86_400_000 - (DAYS - 1) * 86_400_000;

  const db = new Database(file);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = OFF");
  const indexes = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('events', 'conversions')",
    )
    .all([]) as { name: string; sql: string }[];
  for (const index of indexes) db.exec(`DROP INDEX ${index.name}`);
  for (let i = 0; i < SITES; i++) {
    db.prepare("INSERT INTO sites (id, name, domain, allowlist, timezone) VALUES (?, ?, ?, ?, ?)").run([
      siteId(i),
      `Bench ${i}`,
      `bench${i}.example`,
      JSON.stringify([`bench${i}.example`]),
      ZONES[i % ZONES.length]!,
    ]);
    GOALS.forEach((name, g) =>
      db
        .prepare("INSERT INTO goals (id, site_id, name, kind, match) VALUES (?, ?, ?, 'event', ?)")
        .run([goalId(i, g), siteId(i), name, name]),
    );
  }
  const insertEvent = db.prepare("INSERT INTO events (site_id, session_id, kind, path, ts) VALUES (?, ?, ?, ?, ?)");
  const insertConversion = db.prepare(
    "INSERT INTO conversions (site_id, goal_id, session_id, source, ts) VALUES (?, ?, ?, 's2s', ?)",
  );

  const g: Generated = { events: 0, sessions: 0, conversions: 0 };
  const MEAN_EVENTS_PER_SESSION = 3.5;
  db.exec("BEGIN");
  let inTransaction = 0;
  for (let day = 0; day < DAYS; day++) {
    const dayEnd = Math.round((target * (day + 1)) / DAYS);
    const starts: number[] = [];
    for (let i = 0; i < ((dayEnd - g.events) / MEAN_EVENTS_PER_SESSION) * 1.3; i++) {
      const start = firstDay + day * 86_400_000 + pickHour() * HOUR + Math.floor(random() * HOUR);
      // Today's sessions end at now: the rules read up to the last closed hour.
      if (start < now) starts.push(start);
    }
    starts.sort((a, b) => a - b);
    for (const start of starts) {
      if (g.events >= dayEnd) break;
      const s = site();
      const session = randomBytes(16).toString("base64url");
      g.sessions++;
      const views = 1 + Math.floor(-Math.log(1 - random()) * 3);
      let ts = start;
      for (let v = 0; v < views && g.events < dayEnd && ts < now; v++) {
        insertEvent.run([siteId(s), session, random() < 0.85 ? "pageview" : "engagement", `/p/${page()}`, ts]);
        g.events++;
        ts += 20_000 + Math.floor(random() * 240_000);
      }
      // A funnel, as in the reports bench: 6 % sign up, half of them start a trial, a third of those buy.
      for (let step = 0; step < GOALS.length && random() < [0.06, 0.5, 0.33][step]! && ts < now; step++) {
        insertConversion.run([siteId(s), goalId(s, step), session, ts]);
        g.conversions++;
        ts += 60_000;
      }
      if (++inTransaction >= EVENTS_PER_TRANSACTION / MEAN_EVENTS_PER_SESSION) {
        db.exec("COMMIT");
        db.exec("BEGIN");
        inTransaction = 0;
      }
    }
  }
  db.exec("COMMIT");
  for (const index of indexes) db.exec(index.sql);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  db.close();
  return g;
}

/** The bench's rules: per site, pageviews, visitors and goal conversions in turn, below or above thresholds spread over four decades. */
function ruleInputs(): Parameters<typeof createRule>[1][] {
  const random = prng(11);
  return Array.from({ length: RULES }, (_, r) => {
    const site = Math.floor(r / (RULES / SITES));
    const metric = (["pageviews", "visitors", "goal"] as const)[r % 3]!;
    // 1 ("none at all") for a tenth, else k to 5,000, log-uniform.
    const threshold = random() < 0.1 ? 1 : Math.max(DEFAULT_K, Math.round(10 ** (Math.log10(DEFAULT_K) + random() * 3)));
    return {
      site: siteId(site),
      kind: "threshold" as const,
      metric,
      ...(metric === "goal" ? { goal_id: goalId(site, Math.floor(r / 3) % GOALS.length) } : {}),
      condition: random() < 0.5 ? ("below" as const) : ("above" as const),
      threshold,
      window_hours: r % 10 === 0 ? 168 : r % 10 === 1 ? 1 : 1 + Math.floor(random() * 168),
      for_minutes: random() < 0.5 ? 0 : 60,
      enabled: true,
      destinations: [{ url: `https://hooks.example.com/wren/${r}`, format: "standard" as const }],
    };
  });
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
export const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000)).toLocaleString("en");

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

async function scale(events: number): Promise<void> {
  return inScratchFolder("alerts", async (dir) => {
    const file = join(dir, "wren.db");
    const settings = loadSettings({ ...process.env, WREN_DATA: dir });
    const migrated = await openDatabase(settings);
    await applyMigrations(migrated);
    migrated.$client.close();

    const now = Date.now();
    let started = performance.now();
    const g = generate(file, events, now);
    console.log(
      `\n${(events / 1e6).toFixed(1)} M events (${g.sessions.toLocaleString("en")} sessions, ${g.conversions.toLocaleString("en")} conversions) ` +
        `on ${SITES} sites over the ${DAYS} days before now: written in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    const local = createClient({ url: `file:${file}` });
    await local.execute("PRAGMA cache_size = -524288");
    started = performance.now();
    await catchUp(local as never);
    // Published as the publisher would at `now`: every hour that ended a grace before it.
    await local.batch([publishStatement(now - PUBLISH_GRACE_MS, now)], "write");
    local.close();
    console.log(`rollup catch-up and publication: ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const authToken = randomBytes(32).toString("base64url");
    const server = await startHranaServer({ file, host: "127.0.0.1", port: 0, authToken });
    const client = createClient({ url: server.url, authToken });
    const db = await openDatabase(settings, { url: server.url, authToken });
    try {
      started = performance.now();
      const serverSecret = randomBytes(32).toString("hex");
      for (const input of ruleInputs()) await createRule(db, input, { k: DEFAULT_K, serverSecret, webhookAllow: undefined }, now);
      const rules = await loadRules(client as never, "r.enabled = 1", []);
      const windows = rules.map((r) => r.windowHours!);
      console.log(
        `${rules.length.toLocaleString("en")} rules (pageviews, visitors, goal conversions; windows ${Math.min(...windows)}–${Math.max(...windows)} h, ` +
          `median ${median(windows)} h) made through createRule in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );

      const options: EvaluationOptions = {
        now,
        holder: "box_bench",
        k: DEFAULT_K,
        publicUrl: "https://wren.example.com",
        leaseMs: 180_000,
      };
      const first = await timed(() => evaluateRules(client as never, options));
      if (!first.value.leader) throw new Error("the bench's evaluator did not get the lease");
      const states = await client.execute("SELECT state, count(*) AS n FROM alert_rules GROUP BY state ORDER BY state");
      const suppressed = await client.execute("SELECT count(*) AS n FROM alert_rules WHERE last_qualifier = 'suppressed'");
      console.log(
        `first pass: ${fmt(first.ms)}, ${first.value.transitions} transitions (one transaction each, with its outbox row); ` +
          `states now ${states.rows.map((r) => `${r.state} ${r.n}`).join(", ")}; ${suppressed.rows[0]!.n} figures suppressed`,
      );

      // The same figures read the way evaluateRules does (each site's rules together), and one rule at a time.
      const reader = readOnly(client as never);
      const bySite = new Map<string, AlertRule[]>();
      for (const rule of rules) bySite.set(rule.siteId, [...(bySite.get(rule.siteId) ?? []), rule]);
      const readAll = async (groups: AlertRule[][]) => {
        for (const group of groups) await siteReadings(reader, group[0]!.siteId, group, DEFAULT_K, now);
      };
      // Interleaved, so that a busy moment of the box weighs on all three alike.
      const passes: number[] = [];
      const grouped: number[] = [];
      const loads: number[] = [];
      for (let i = 0; i < PASSES; i++) {
        const pass = await timed(() => evaluateRules(client as never, options));
        if (pass.value.rules !== rules.length || pass.value.transitions !== 0)
          throw new Error(`a steady pass evaluated ${pass.value.rules} rules, ${pass.value.transitions} transitions`);
        passes.push(pass.ms);
        grouped.push((await timed(() => readAll([...bySite.values()]))).ms);
        loads.push((await timed(() => loadRules(client as never, "r.enabled = 1", []))).ms);
      }
      const single: number[] = [];
      for (let i = 0; i < PER_RULE_PASSES; i++) single.push((await timed(() => readAll(rules.map((r) => [r])))).ms);
      const pass = median(passes);
      const groupedMs = median(grouped);
      const loadMs = median(loads);
      const singleMs = median(single);

      console.log(
        `\n${PASSES} steady passes (no transitions), median; ${rules.length} rules on ${bySite.size} sites, k = ${DEFAULT_K}`,
      );
      console.log("what                                          per pass    rules/s    per site");
      const line = (what: string, ms: number) =>
        console.log(
          `${what.padEnd(44)} ${fmt(ms).padStart(9)}  ${rate(rules.length, ms).padStart(9)}  ${fmt(ms / bySite.size).padStart(9)}`,
        );
      line("evaluateRules (full pass)", pass);
      line("  its figures alone, read per site", groupedMs);
      line("  the rules and destinations (loadRules)", loadMs);
      line("  the same figures read one rule at a time", singleMs);
      console.log(`passes: ${passes.map((ms) => fmt(ms)).join(", ")}`);
      console.log(`ratio one rule at a time / per site (reads): ${(singleMs / groupedMs).toFixed(1)}×`);
      console.log(
        `ratio full pass / its reads: ${(pass / groupedMs).toFixed(2)}× (the rest, ${fmt(pass - groupedMs - loadMs)} beyond the rules' load: ` +
          "the lease and one write batch of every rule's state update)",
      );
      console.log(
        `ratio pass / interval: ${((pass / DEFAULT_INTERVAL_MS) * 100).toFixed(2)} % of the default ${DEFAULT_INTERVAL_MS / 1000} s, ` +
          `${((pass / 1000) * 100).toFixed(0)} % of the shortest (WREN_ALERT_INTERVAL=1)`,
      );
      printJson({
        bench: "alerts",
        events,
        sites: bySite.size,
        rules: rules.length,
        firstPassMs: Math.round(first.ms),
        transitions: first.value.transitions,
        passMs: Math.round(pass),
        rulesPerSecond: Math.round(rules.length / (pass / 1000)),
        readsPerSiteMs: Math.round(groupedMs),
        readsPerRuleMs: Math.round(singleMs),
        loadRulesMs: Math.round(loadMs),
      });
    } finally {
      db.$client.close();
      client.close();
      await server.close();
    }
  });
}

export async function run(): Promise<void> {
  const scales = benchScales("BENCH_ALERT_SCALES", "1000000");
  for (const events of scales) await scale(events);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
