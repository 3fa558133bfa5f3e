/**
 * Reads are reads: report requests prepared and computed while ingest and the publisher run
 * take no write transaction on the libSQL server (counted by the server's write lock), and
 * the handle a report gets cannot write, by its type and by the engine.
 */
import { createClient, type Client } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER } from "../../cli/database";
import type { Database } from "../../worker/lib/db";
import * as schema from "../../worker/lib/schema";
import { readOnly } from "../../worker/lib/read-only";
import { conversionsReport } from "../../worker/reports/conversions";
import { pagesReport } from "../../worker/reports/pages";
import { publishOnce } from "../../worker/reports/publisher";
import { prepareReport } from "../../worker/reports/request";
import { timeseriesReport } from "../../worker/reports/timeseries";
import { startTestServer, type TestServer } from "../hrana/helpers";
import { addGoal, addSite } from "./helpers";

const SITE = "site_readpath";
const DAY = 86_400_000;
let server: TestServer;
const clients: Client[] = [];

function connect(): Client {
  const client = createClient({ url: server.url });
  clients.push(client);
  return client;
}

/** A client whose write batches are counted. */
function counted(client: Client): { client: Client; writes: () => number } {
  let writes = 0;
  const batch = client.batch.bind(client);
  client.batch = ((statements: never, mode: never) => {
    if (mode !== "read") writes++;
    return batch(statements, mode);
  }) as Client["batch"];
  return { client, writes: () => writes };
}

beforeAll(async () => {
  server = await startTestServer({ isolate: false });
  const setup = connect();
  await migrate(drizzle(setup), { migrationsFolder: MIGRATIONS_FOLDER });
  await addSite(setup, SITE);
  await addGoal(setup, SITE, "goal_signup");
});

afterAll(async () => {
  for (const c of clients) c.close();
  await server.dispose();
});

describe("the report read path", () => {
  it("takes no write transaction while beacons are stored and the publisher folds", async () => {
    const ingest = counted(connect());
    const publisher = counted(connect());
    const readerClient = connect();
    // As lib/db.ts builds it: the reports read through `$reader`, a read-only handle.
    const db = Object.assign(drizzle(readerClient, { schema }), { $reader: readOnly(readerClient as never) }) as unknown as Database;
    const now = Date.now();
    await publishOnce(publisher.client as never, { now: () => now });

    const before = { server: server.writeTransactions!(), ingest: ingest.writes(), publisher: publisher.writes() };
    let stop = false;
    let stored = 0;
    const ingesting = (async () => {
      for (let i = 0; !stop; i++) {
        // Yesterday's and today's rows, as the collector and late s2s conversions write them.
        await ingest.client.batch(
          [
            {
              sql: "INSERT INTO events (site_id, session_id, kind, path, ts) VALUES (?, ?, 'pageview', '/', ?), (?, ?, 'pageview', '/', ?)",
              args: [SITE, `s${i}`, now - DAY, SITE, `t${i}`, now],
            },
            { sql: "INSERT INTO conversions (site_id, goal_id, session_id, source, ts) VALUES (?, 'goal_signup', ?, 's2s', ?)", args: [SITE, `s${i}`, now - DAY] },
          ],
          "write",
        );
        stored += 2;
      }
    })();
    const publishing = (async () => {
      while (!stop) {
        await publishOnce(publisher.client as never, { now: () => now, chunkRows: 50 });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    let reads = 0;
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline) {
      const p = await prepareReport({ db, env: {}, request: new Request("http://wren.test/") }, SITE, { period: "7d" });
      // Straight to the report functions, around the cache: every read reaches the database.
      await pagesReport(p.db, p.scope);
      await timeseriesReport(p.db, p.scope, "hour");
      await conversionsReport(p.db, p.scope);
      reads++;
    }
    stop = true;
    await Promise.all([ingesting, publishing]);

    expect(reads).toBeGreaterThan(5);
    expect(stored).toBeGreaterThan(10);
    expect(publisher.writes() - before.publisher).toBeGreaterThan(1);
    // Every write transaction the server granted was the ingest's or the publisher's.
    expect(server.writeTransactions!() - before.server).toBe(
      ingest.writes() - before.ingest + (publisher.writes() - before.publisher),
    );
  });

  it("gives reports a handle that cannot write: the type has no way, the engine refuses", async () => {
    const reader = readOnly(connect());
    // @ts-expect-error: a report's handle has no execute (and no batch), only query and queryAll.
    expect(reader.execute).toBeUndefined();
    const count = async () => Number((await reader.query("SELECT count(*) AS n FROM sites")).rows[0]!.n);
    const sites = await count();
    await expect(
      reader.query({ sql: "INSERT INTO sites (id, name, domain, allowlist) VALUES ('site_x', 'x', 'x.example', '[]')", args: [] }),
    ).rejects.toThrow(/read ?only|readonly/i);
    await expect(reader.queryAll(["SELECT 1", "DELETE FROM sites"])).rejects.toThrow(/read ?only|readonly/i);
    expect(await count()).toBe(sites);
  });
});
