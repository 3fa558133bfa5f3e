/**
 * Insert throughput of the embedded libSQL server (Hrana over HTTP, @libsql/client) next to
 * the same work done in-process on the `libsql` engine with the same pragmas (WAL,
 * synchronous=FULL), printed as rows/s and as a ratio. Runs in well under a minute.
 *
 *   npx tsx bench/libsql.ts        (or: npm run bench libsql)
 */
import { createClient, type InStatement } from "@libsql/client";
import Database from "libsql";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startHranaServer } from "../server/hrana/index.js";

const ROUNDS = 3;
const SINGLE_ROWS = 1_000;
const BATCH_SIZE = 1_000;
const BATCHES = 30;
const CONCURRENT_CLIENTS = 8;
const CONCURRENT_BATCH_CLIENTS = 3;

const CREATE =
  "CREATE TABLE events (id INTEGER PRIMARY KEY, site TEXT NOT NULL, path TEXT NOT NULL, referrer TEXT, at INTEGER NOT NULL, duration REAL)";
const INSERT = "INSERT INTO events (site, path, referrer, at, duration) VALUES (?, ?, ?, ?, ?)";

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

function inProcess(file: string): { single: () => Promise<Figure>; batches: () => Promise<Figure>; close: () => void } {
  const db = new Database(file);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.defaultSafeIntegers(true);
  db.exec(CREATE);
  const insert = db.prepare(INSERT);
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
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

function postRaw(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/v2/pipeline`,
      { method: "POST", agent, headers: { "content-type": "application/json" } },
      (res) => {
        res.resume();
        res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function median(figures: Figure[]): Figure {
  const sorted = [...figures].sort((a, b) => rate(a) - rate(b));
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "wren-bench-libsql-"));
  try {
    const local = inProcess(join(dir, "in-process.db"));
    const server = await startHranaServer({ file: join(dir, "server.db"), authToken: "" });
    const client = createClient({ url: server.url });
    await client.execute(CREATE);
    let next = 0;
    const batchOf = (): InStatement[] => Array.from({ length: BATCH_SIZE }, () => ({ sql: INSERT, args: rowArgs(next++) }));

    // Warm up both paths (JIT, statement caches, pooled connections) before timing.
    await client.batch(batchOf(), "write");
    await client.execute({ sql: INSERT, args: rowArgs(next++) });
    let serverRows = BATCH_SIZE + 1;

    // The machine is shared and noisy: alternate the two sides and keep the median round.
    const figures: Record<"localSingle" | "serverSingle" | "localBatches" | "serverBatches" | "serverOnly", Figure[]> = {
      localSingle: [],
      serverSingle: [],
      localBatches: [],
      serverBatches: [],
      serverOnly: [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      figures.localSingle.push(await local.single());
      figures.serverSingle.push(
        await timed("1-row inserts (autocommit)", SINGLE_ROWS, async () => {
          for (let i = 0; i < SINGLE_ROWS; i++) await client.execute({ sql: INSERT, args: rowArgs(next++) });
        }),
      );
      figures.localBatches.push(await local.batches());
      figures.serverBatches.push(
        await timed(`${BATCH_SIZE}-row batches (one transaction each)`, BATCH_SIZE * BATCHES, async () => {
          for (let b = 0; b < BATCHES; b++) await client.batch(batchOf(), "write");
        }),
      );
      // The same batches as raw Hrana JSON built up front: what the server itself costs,
      // without @libsql/client's encoding and decoding (which runs on this same thread).
      const rawBodies = Array.from({ length: BATCHES }, () =>
        hranaBatchBody(Array.from({ length: BATCH_SIZE }, () => rowArgs(next++))),
      );
      figures.serverOnly.push(
        await timed(`${BATCH_SIZE}-row batches, pre-encoded Hrana JSON`, BATCH_SIZE * BATCHES, async () => {
          for (const body of rawBodies) await postRaw(server.url, body);
        }),
      );
      serverRows += SINGLE_ROWS + 2 * BATCH_SIZE * BATCHES;
    }

    const perClient = Math.floor(SINGLE_ROWS / CONCURRENT_CLIENTS);
    const clients = Array.from({ length: CONCURRENT_CLIENTS }, () => createClient({ url: server.url }));
    const serverConcurrent = await timed(
      `1-row inserts, ${CONCURRENT_CLIENTS} concurrent clients`,
      perClient * CONCURRENT_CLIENTS,
      async () => {
        await Promise.all(
          clients.map(async (c) => {
            for (let i = 0; i < perClient; i++) await c.execute({ sql: INSERT, args: rowArgs(next++) });
          }),
        );
      },
    );
    serverRows += perClient * CONCURRENT_CLIENTS;

    // The same batches from several clients at once, as several workers would send them: the
    // client's encoding (this thread) overlaps the server's work (its own process). The
    // server still commits one writer at a time.
    const batchesPerClient = Math.floor(BATCHES / CONCURRENT_BATCH_CLIENTS);
    const batchesConcurrent = await timed(
      `${BATCH_SIZE}-row batches, ${CONCURRENT_BATCH_CLIENTS} concurrent clients`,
      BATCH_SIZE * batchesPerClient * CONCURRENT_BATCH_CLIENTS,
      async () => {
        await Promise.all(
          clients.slice(0, CONCURRENT_BATCH_CLIENTS).map(async (c) => {
            for (let b = 0; b < batchesPerClient; b++) await c.batch(batchOf(), "write");
          }),
        );
      },
    );
    serverRows += BATCH_SIZE * batchesPerClient * CONCURRENT_BATCH_CLIENTS;
    for (const c of clients) c.close();

    const check = await client.execute("SELECT count(*) FROM events");
    if (Number(check.rows[0]![0]) !== serverRows)
      throw new Error(`server table has ${check.rows[0]![0]} rows, expected ${serverRows}`);
    client.close();
    await server.close();
    local.close();

    const localSingle = median(figures.localSingle);
    const localBatches = median(figures.localBatches);
    const serverOnly = median(figures.serverOnly);
    const fmt = (n: number) => Math.round(n).toLocaleString("en-US").padStart(10);
    const pct = (a: Figure, b: Figure) => `${((100 * rate(b)) / rate(a)).toFixed(0).padStart(4)} %`;
    console.log(`libSQL inserts, WAL + synchronous=FULL (every commit fsynced); median of ${ROUNDS} rounds`);
    console.log(`${"case".padEnd(44)}${"in-process".padStart(14)}${"via server".padStart(14)}   ratio`);
    for (const [a, b] of [
      [localSingle, median(figures.serverSingle)],
      [localBatches, median(figures.serverBatches)],
    ] as const) {
      console.log(`${a.name.padEnd(44)}${fmt(rate(a))} r/s${fmt(rate(b))} r/s  ${pct(a, b)}`);
    }
    console.log(`${serverOnly.name.padEnd(44)}${"".padStart(14)}${fmt(rate(serverOnly))} r/s  ${pct(localBatches, serverOnly)}`);
    console.log(`${serverConcurrent.name.padEnd(44)}${"".padStart(14)}${fmt(rate(serverConcurrent))} r/s`);
    console.log(`${batchesConcurrent.name.padEnd(44)}${"".padStart(14)}${fmt(rate(batchesConcurrent))} r/s  ${pct(localBatches, batchesConcurrent)}`);
    console.log(`target: ${BATCH_SIZE}-row batches via the server at >= 50 % of in-process throughput`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  await run();
}
