/**
 * Custom properties at the collector (issue 39) against the real stack: on beacons the props
 * on the site's allowlist are kept and every other one dropped and counted per reason, never a
 * refused beacon; on `/s2s` and `POST /api/v1/events` a wrong type is a 422 naming the field with
 * nothing written. The allowlist is managed with the real CLI (`wren props`).
 */
import type { Client } from "@libsql/client";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../helpers/stack";
import { BROWSER_UA, collectorCounts, createGoal, createSite, ensureTrackerBuilt, openDb, rows, type TestSite } from "./helpers";

let stack: Stack;
let db: Client;
let shop: TestSite;
let signup: string;

const newSession = () => randomBytes(16).toString("base64url");

async function beacon(events: object[], session = newSession()) {
  const response = await fetch(`${stack.url}/e`, {
    method: "POST",
    headers: { "content-type": "text/plain", origin: "https://props.test", "user-agent": BROWSER_UA },
    body: JSON.stringify({ site: shop.id, session, events }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function s2s(body: unknown) {
  const response = await fetch(`${stack.url}/s2s`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-token": shop.token },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function drops(): Promise<Record<string, number>> {
  const list = await rows(db, "SELECT reason, sum(count) AS n FROM prop_drops WHERE site_id = ? GROUP BY reason", [shop.id]);
  return Object.fromEntries(list.map((r) => [String(r.reason), Number(r.n)]));
}

/** The drops counted by `action`, per reason. */
async function dropsOf(action: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = await drops();
  await action();
  const after = await drops();
  return Object.fromEntries(
    Object.entries(after).flatMap(([r, n]) => (n - (before[r] ?? 0) > 0 ? [[r, n - (before[r] ?? 0)]] : [])),
  );
}

const lastEventProps = async () =>
  (await rows(db, "SELECT props FROM events WHERE site_id = ? ORDER BY id DESC LIMIT 1", [shop.id]))[0]!.props;

beforeAll(async () => {
  await ensureTrackerBuilt();
  stack = await startStack();
  shop = await createSite(stack, "props.test");
  signup = await createGoal(stack, shop.id, "event", "signup");
  // Allowed before the collector first reads the site (it caches a site's config for seconds).
  for (const name of ["plan", "method", "__proto__"]) {
    const added = await stack.cli(["props", "add", "--site", shop.id, name, "--json"]);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toEqual({ site: shop.id, name, created: true });
  }
  db = openDb(stack);
});

afterAll(async () => {
  db?.close();
  await stack?.stop();
});

describe("beacon props", () => {
  it("keeps the allowlisted props on pageviews and events (and the event's conversions), drops the rest and counts each drop by reason", async () => {
    const counted = await dropsOf(async () => {
      const answer = await beacon([
        {
          type: "pageview",
          path: "/",
          props: { plan: "pro", typo: "x", "bad name": "y", method: "", url: "https://out.example" },
        },
        { type: "event", path: "/", name: "signup", props: { plan: "free", method: "google", n: 5 } },
      ]);
      expect(answer).toEqual({ status: 202, body: { accepted: 2 } });
    });
    expect(counted).toEqual({ not_allowed: 1, invalid_name: 1, invalid_value: 2 });
    expect(await rows(db, "SELECT kind, props FROM events WHERE site_id = ? ORDER BY id DESC LIMIT 2", [shop.id])).toEqual([
      { kind: "event", props: '{"plan":"free","method":"google"}' },
      // The reserved `url` (outbound links) is kept without being allowed, and never counted.
      { kind: "pageview", props: '{"plan":"pro","url":"https://out.example"}' },
    ]);
    expect(
      await rows(db, "SELECT goal_id, props FROM conversions WHERE site_id = ? ORDER BY id DESC LIMIT 1", [shop.id]),
    ).toEqual([{ goal_id: signup, props: '{"plan":"free","method":"google"}' }]);
  });

  it("stores no props (null) and counts nothing when none are sent, or props is not an object", async () => {
    for (const props of [undefined, "plan=pro", ["pro"], null, 7]) {
      const counted = await dropsOf(async () =>
        expect((await beacon([{ type: "pageview", path: "/", props }])).status).toBe(202),
      );
      expect(counted).toEqual({});
      expect(await lastEventProps()).toBeNull();
    }
  });

  it("takes 1000 props: the first 30 are read, the other 970 dropped as too_many, and the beacon is stored", async () => {
    const sent = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [i === 3 ? "plan" : `p${i}`, "v"]));
    const before = await collectorCounts(db);
    const counted = await dropsOf(async () =>
      expect((await beacon([{ type: "pageview", path: "/many", props: sent }])).status).toBe(202),
    );
    expect(counted).toEqual({ too_many: 970, not_allowed: 29 });
    expect(await lastEventProps()).toBe('{"plan":"v"}');
    expect((await collectorCounts(db)).events).toBe(before.events + 1);
  });

  it("cleans control characters out of values, cuts them to 200, drops names with them, and keeps __proto__ as a plain name", async () => {
    const counted = await dropsOf(async () => {
      const answer = await beacon([
        {
          type: "pageview",
          path: "/hostile",
          props: JSON.parse(
            '{"plan":"p\\u0000r\\u0007o\\u009f","pla\\u0000n":"x","__proto__":"polluted","method":"' + "m".repeat(5000) + '"}',
          ),
        },
      ]);
      expect(answer.status).toBe(202);
    });
    expect(counted).toEqual({ invalid_name: 1 });
    expect(JSON.parse(String(await lastEventProps()))).toEqual(
      JSON.parse(`{"plan":"pro","__proto__":"polluted","method":"${"m".repeat(200)}"}`),
    );
    // A value that is only control characters is empty once cleaned.
    expect(await dropsOf(() => beacon([{ type: "pageview", path: "/", props: { plan: "\u0001\u0002" } }]))).toEqual({
      invalid_value: 1,
    });
  });

  it("refuses a beacon over its size bound (a 1 MB value) with 413, storing nothing and counting nothing", async () => {
    const before = await collectorCounts(db);
    const counted = await dropsOf(async () =>
      expect((await beacon([{ type: "pageview", path: "/", props: { plan: "x".repeat(1024 * 1024) } }])).status).toBe(413),
    );
    expect(counted).toEqual({});
    expect(await collectorCounts(db)).toEqual(before);
  });
});

describe("s2s and API props", () => {
  it("keeps the allowlisted props of a conversion, drops the others and counts them (a typo loses no conversion)", async () => {
    const counted = await dropsOf(async () => {
      const answer = await s2s({ goal_id: signup, props: { plan: "pro", plam: "pro", "": "x" } });
      expect(answer.status).toBe(202);
      expect(answer.body.accepted).toBe(1);
    });
    expect(counted).toEqual({ not_allowed: 1, invalid_name: 1 });
    expect(await rows(db, "SELECT source, props FROM conversions WHERE site_id = ? ORDER BY id DESC LIMIT 1", [shop.id])).toEqual(
      [{ source: "s2s", props: '{"plan":"pro"}' }],
    );
  });

  it("refuses a non-object or a non-text value with a 422 naming events.N.props, writing nothing", async () => {
    const cases: [unknown, string][] = [
      [{ goal_id: signup, props: "plan=pro" }, "props"],
      [{ goal_id: signup, props: ["pro"] }, "props"],
      [{ goal_id: signup, props: { plan: 5 } }, "props"],
      [{ events: [{ goal_id: signup }, { goal_id: signup, props: { plan: null, typo: "x" } }] }, "events.1.props"],
      [{ events: [{ goal_id: signup, props: { plan: { nested: "x" } } }] }, "events.0.props"],
    ];
    for (const [body, field] of cases) {
      const before = await collectorCounts(db);
      const counted = await dropsOf(async () => {
        const answer = await s2s(body);
        expect(answer.status, JSON.stringify(body)).toBe(422);
        expect(answer.body.field).toBe(field);
      });
      expect(counted).toEqual({});
      expect(await collectorCounts(db)).toEqual(before);
    }
  });

  it("refuses the same through POST /api/v1/events, and a 1 MB value with 413, writing nothing", async () => {
    const before = await collectorCounts(db);
    const post = (body: unknown) =>
      fetch(`${stack.url}/api/v1/events`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${stack.adminKey}` },
        body: JSON.stringify(body),
      });
    const wrong = await post({ site: shop.id, goal_id: signup, props: { plan: true } });
    expect(wrong.status).toBe(422);
    expect(await wrong.json()).toMatchObject({ field: "props" });
    const huge = await post({ site: shop.id, goal_id: signup, props: { plan: "x".repeat(1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(await collectorCounts(db)).toEqual(before);
    const kept = await post({ site: shop.id, goal_id: signup, props: { method: "sso" } });
    expect(kept.status).toBe(202);
    expect(await rows(db, "SELECT props FROM conversions WHERE site_id = ? ORDER BY id DESC LIMIT 1", [shop.id])).toEqual([
      { props: '{"method":"sso"}' },
    ]);
  });
});

describe("wren props", () => {
  it("lists the names and the last 7 days' drops, removes a name, and refuses a bad name or an unknown one", async () => {
    const listed = await stack.cli(["props", "list", "--site", shop.id, "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const body = JSON.parse(listed.stdout);
    expect(body.names).toEqual(["__proto__", "method", "plan"]);
    // Every drop the tests above counted, per reason (all today).
    expect(body.drops).toEqual(
      await drops().then((d) => ({ not_allowed: 0, invalid_name: 0, invalid_value: 0, too_many: 0, ...d })),
    );
    const removed = await stack.cli(["props", "remove", "--site", shop.id, "__proto__", "--json"]);
    expect([removed.code, JSON.parse(removed.stdout)]).toEqual([0, { site: shop.id, name: "__proto__", removed: true }]);
    const again = await stack.cli(["props", "remove", "--site", shop.id, "__proto__"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("does not allow the property __proto__");
    const bad = await stack.cli(["props", "add", "--site", shop.id, "bad name"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("NAME: must be a property name");
    const reserved = await stack.cli(["props", "add", "--site", shop.id, "url"]);
    expect(reserved.code).toBe(1);
    expect(reserved.stderr).toContain("reserved");
    expect((await rows(db, "SELECT name FROM site_props WHERE site_id = ? ORDER BY name", [shop.id])).map((r) => r.name)).toEqual(
      ["method", "plan"],
    );
  });
});
