/**
 * Retries of database calls that wrote nothing (worker/lib/libsql.ts, retryUnsent): a writer that
 * waited too long for the lock is run again, against the real embedded server with another
 * stream holding the write lock; a call that may have committed (past its deadline) is not.
 */
import { createClient, type Client } from "@libsql/client";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHranaServer, type HranaServer } from "../../server/hrana/index";
import { DatabaseTimeout, isRetryableUnsent } from "../../worker/lib/faults";
import { retryUnsent } from "../../worker/lib/libsql";

let dir: string;
let server: HranaServer;
let db: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "wren-retry-"));
  // A writer gives up on the lock after 100 ms (TRANSACTION_BUSY), as sqld answers SQLITE_BUSY.
  server = await startHranaServer({ file: join(dir, "retry.db"), authToken: "", lockTimeoutMs: 100, isolate: false });
  db = createClient({ url: server.url });
  await db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
});

afterAll(async () => {
  db?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Holds the write lock on another stream for `ms`, then commits. */
async function holdLock(ms: number): Promise<void> {
  const holder = createClient({ url: server.url });
  const tx = await holder.transaction("write");
  await tx.execute("INSERT INTO t (v) VALUES ('holder')");
  setTimeout(() => void tx.commit().finally(() => holder.close()), ms);
}

describe("retrying calls that wrote nothing", () => {
  it("a write refused for the lock fails without retries, and succeeds with them once the lock is free", async () => {
    await holdLock(300);
    const refused = await db.execute("INSERT INTO t (v) VALUES ('once')").catch((error: unknown) => error);
    expect((refused as { code?: string }).code).toBe("TRANSACTION_BUSY");
    expect(isRetryableUnsent(refused)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 400));

    await holdLock(300);
    let attempts = 0;
    await retryUnsent(() => (attempts++, db.batch(["INSERT INTO t (v) VALUES ('retried')"], "write")));
    expect(attempts).toBeGreaterThan(1);
    const rows = (await db.execute("SELECT v, count(*) AS n FROM t GROUP BY v ORDER BY v")).rows.map((r) => [r.v, Number(r.n)]);
    // Stored once: the refused attempts wrote nothing.
    expect(rows).toEqual([
      ["holder", 2],
      ["retried", 1],
    ]);
  });

  it("gives up after its delays, with the last error", async () => {
    let attempts = 0;
    const busy = Object.assign(new Error("busy"), { code: "SQLITE_BUSY" });
    await expect(retryUnsent(() => (attempts++, Promise.reject(busy)), [1, 1])).rejects.toBe(busy);
    expect(attempts).toBe(3);
  });

  it("does not retry what may have committed: a deadline passed, a lost connection, a constraint", async () => {
    for (const error of [
      new DatabaseTimeout(5_000),
      new TypeError("Network connection lost."),
      Object.assign(new Error("UNIQUE constraint failed"), { code: "SQLITE_CONSTRAINT_UNIQUE" }),
    ]) {
      let attempts = 0;
      await expect(retryUnsent(() => (attempts++, Promise.reject(error)), [1, 1])).rejects.toBe(error);
      expect(attempts).toBe(1);
    }
    // A refused connection never reached the database: retried, also when wrapped (drizzle wraps the client's errors).
    const refused = new Error("query failed", { cause: new TypeError("fetch failed: connect ECONNREFUSED 127.0.0.1:1") });
    expect(isRetryableUnsent(refused)).toBe(true);
  });
});
