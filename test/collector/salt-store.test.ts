/**
 * The session salts in the database (worker/collector/salt-store.ts) against the real embedded
 * server with the project's migrations: instances that rotate at the same moment make one salt,
 * a salt a little "in the future" of one clock is still current, expired salts go, and retention
 * deletes them when no beacon comes.
 */
import type { Client } from "@libsql/client/web";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { saltsInForce } from "../../worker/collector/salt-store";
import { SALT_PERIOD_MS } from "../../worker/collector/salts";
import { applyRetention } from "../../worker/reports/retention";
import { openDomainDb, type DomainDb } from "../domain/helpers";

const T0 = Date.parse("2026-11-23T08:00:00Z");
const HOUR = 3_600_000;

let domain: DomainDb;
let client: Client;

beforeEach(async () => {
  domain = await openDomainDb();
  client = domain.client as unknown as Client;
});
afterEach(async () => {
  await domain.close();
});

async function stored(): Promise<{ id: string; createdAt: number }[]> {
  const rs = await client.execute("SELECT id, created_at FROM session_salts ORDER BY created_at DESC");
  return rs.rows.map((r) => ({ id: String(r.id), createdAt: Number(r.created_at) }));
}

describe("session salts in the database", () => {
  it("are made once, also when several instances ask at the same moment", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => saltsInForce(client, T0)));
    expect(new Set(answers.map((a) => a.current.secret)).size).toBe(1);
    expect(answers[0]!.current.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(answers[0]!.previous).toBeNull();
    expect(await stored()).toHaveLength(1);
    // A read later in the period finds the same salt and writes nothing.
    expect((await saltsInForce(client, T0 + 23 * HOUR)).current.id).toBe(answers[0]!.current.id);
    expect(await stored()).toHaveLength(1);
  });

  it("rotate once per period across instances, keep the previous for lookups, and delete it after its 48 hours", async () => {
    const first = await saltsInForce(client, T0);
    const rotated = await Promise.all(Array.from({ length: 4 }, () => saltsInForce(client, T0 + 25 * HOUR)));
    expect(new Set(rotated.map((r) => r.current.id)).size).toBe(1);
    expect(rotated[0]!.current.id).not.toBe(first.current.id);
    expect(rotated[0]!.previous?.id).toBe(first.current.id);
    expect((await stored()).map((s) => s.id)).toEqual([rotated[0]!.current.id, first.current.id]);

    // Just past 48 h after the first was made: it is past its lookup day and leaves the table.
    const later = await saltsInForce(client, T0 + 48 * HOUR + 60_000);
    expect(later.current.id).toBe(rotated[0]!.current.id);
    expect(later.previous).toBeNull();
    expect((await stored()).map((s) => s.id)).toEqual([rotated[0]!.current.id]);
  });

  it("take a salt another instance made a little ahead of this clock as the current one", async () => {
    const ahead = await saltsInForce(client, T0 + 2 * 60_000);
    const behind = await saltsInForce(client, T0);
    expect(behind.current.id).toBe(ahead.current.id);
    expect(await stored()).toHaveLength(1);
  });

  it("are deleted by retention past their two periods, and beyond the two newest, with no beacon to rotate them", async () => {
    await client.batch(
      [
        { sql: "INSERT INTO session_salts (id, secret, created_at) VALUES ('now', ?, ?)", args: ["a".repeat(64), T0] },
        {
          sql: "INSERT INTO session_salts (id, secret, created_at) VALUES ('day-ago', ?, ?)",
          args: ["b".repeat(64), T0 - SALT_PERIOD_MS],
        },
        {
          sql: "INSERT INTO session_salts (id, secret, created_at) VALUES ('older', ?, ?)",
          args: ["c".repeat(64), T0 - 30 * HOUR],
        },
        {
          sql: "INSERT INTO session_salts (id, secret, created_at) VALUES ('lapsed', ?, ?)",
          args: ["d".repeat(64), T0 - 2 * SALT_PERIOD_MS],
        },
      ],
      "write",
    );
    const run = await applyRetention(client, { now: T0, days: 30 });
    expect(run.deleted.session_salts).toBe(2);
    expect((await stored()).map((s) => s.id)).toEqual(["now", "day-ago"]);
  });
});
