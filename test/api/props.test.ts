/**
 * A site's custom property names over the API (issue 39) and the `prop:NAME` breakdown, against
 * the real stack: PUT is idempotent and bounded, DELETE stops a name, GET shows the recent drops;
 * hostile names and refused calls write nothing; the breakdown by a property reads the engine
 * (rule F), refuses days before raw retention (422 naming `dimension`) and the closed hours.
 */
import type { Client } from "@libsql/client";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_SITE_PROPS } from "../../worker/domain/props";
import { postBeacon } from "../collector/helpers";
import { apiFixture, type ApiFixture } from "./fixtures";

let f: ApiFixture;
let site: string;
let other: string;

const names = async (db: Client, siteId: string) =>
  (await db.execute({ sql: "SELECT name FROM site_props WHERE site_id = ? ORDER BY name", args: [siteId] })).rows.map((r) =>
    String(r.name),
  );

beforeAll(async () => {
  f = await apiFixture();
  site = (await f.makeSite("props.example")).id;
  other = (await f.makeSite("other-props.example")).id;
}, 120_000);
afterAll(() => f?.close());

describe("the allowlist routes", () => {
  it("allow a name (201, then 200), list it with the drops, and stop it (204, then 404)", async () => {
    expect((await f.admin("PUT", `/api/v1/sites/${site}/props/plan`)).status).toBe(201);
    const again = await f.admin("PUT", `/api/v1/sites/${site}/props/plan`);
    expect([again.status, again.body]).toEqual([200, { name: "plan" }]);
    expect((await f.admin("PUT", `/api/v1/sites/${site}/props/doomed`)).status).toBe(201);
    // A beacon with one prop off the allowlist and one with no value: counted, never stored.
    const beacon = await postBeacon(f.stack.url, "props.example", {
      site,
      session: randomBytes(16).toString("base64url"),
      events: [{ type: "pageview", path: "/", props: { plan: "pro", colour: "red", doomed: "" } }],
    });
    expect(beacon.status).toBe(202);
    const listed = await f.admin("GET", `/api/v1/sites/${site}/props`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      names: ["doomed", "plan"],
      drops: { not_allowed: 1, invalid_name: 0, invalid_value: 1, too_many: 0 },
      drops_since: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect((await f.admin("DELETE", `/api/v1/sites/${site}/props/doomed`)).status).toBe(204);
    const gone = await f.admin("DELETE", `/api/v1/sites/${site}/props/doomed`);
    expect([gone.status, gone.body.field]).toEqual([404, "name"]);
    expect(await names(f.database(), site)).toEqual(["plan"]);
  });

  it(`refuse hostile names (400), reserved ones and a ${MAX_SITE_PROPS + 1}st name (422 naming name), writing nothing`, async () => {
    const db = f.database();
    for (const bad of ["bad%20name", "a".repeat(65), "%00", "..%2Fx", "pl%C3%A4n"]) {
      const res = await f.admin("PUT", `/api/v1/sites/${other}/props/${bad}`);
      expect(res.status, bad).toBe(400);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.body.field).toBe("name");
    }
    for (const reserved of ["url", "file"]) {
      const res = await f.admin("PUT", `/api/v1/sites/${other}/props/${reserved}`);
      expect([res.status, res.body.field]).toEqual([422, "name"]);
    }
    expect(await names(db, other)).toEqual([]);
    for (let i = 0; i < MAX_SITE_PROPS; i++)
      expect((await f.admin("PUT", `/api/v1/sites/${other}/props/n${i}`)).status).toBe(201);
    const over = await f.admin("PUT", `/api/v1/sites/${other}/props/one-more`);
    expect([over.status, over.body.field]).toEqual([422, "name"]);
    expect((await names(db, other)).length).toBe(MAX_SITE_PROPS);
    // The same name again is still fine at the bound.
    expect((await f.admin("PUT", `/api/v1/sites/${other}/props/n0`)).status).toBe(200);
  });

  it("are refused without a key, with a wrong scope and for a site off the key's allowlist, writing nothing", async () => {
    const db = f.database();
    const before = await names(db, site);
    const reader = await f.makeKey(["read:reports"], [site]);
    const elsewhere = await f.makeKey(["write:goals"], [other]);
    const anonymous = await fetch(`${f.stack.url}/api/v1/sites/${site}/props/sneaky`, { method: "PUT" });
    expect(anonymous.status).toBe(401);
    for (const [key, status, field] of [
      [reader, 403, "authorization"],
      [elsewhere, 403, "id"],
    ] as const) {
      for (const method of ["PUT", "DELETE"]) {
        const res = await key.call(method, `/api/v1/sites/${site}/props/${method === "PUT" ? "sneaky" : "plan"}`);
        expect([res.status, res.body.field]).toEqual([status, field]);
      }
    }
    expect(await names(db, site)).toEqual(before);
  });
});

describe("dimension=prop:NAME on the breakdown", () => {
  it("breaks the visitors down by a property's values, read from the collector's props", async () => {
    for (let i = 0; i < 14; i++) {
      const props = i < 12 ? { plan: "pro" } : { plan: "free" };
      const res = await postBeacon(f.stack.url, "props.example", {
        site,
        session: randomBytes(16).toString("base64url"),
        events: [{ type: "pageview", path: "/", props }],
      });
      expect(res.status).toBe(202);
    }
    await f.rewindDays(1);
    let res = await f.admin("GET", `/api/v1/breakdown?site=${site}&period=day&dimension=prop:plan`);
    for (let i = 0; i < 120 && res.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 250));
      res = await f.admin("GET", `/api/v1/breakdown?site=${site}&period=day&dimension=prop:plan`);
    }
    expect(res.status, res.text).toBe(200);
    expect(res.body.dimension).toBe("prop:plan");
    // 13 sessions with pro (12 here, 1 from the first test), 2 with free: hidden, no label.
    const rows = res.body.rows as {
      value: string | null;
      other: boolean;
      visitors: { value: number | null; qualifier: string };
    }[];
    expect(rows.map((r) => [r.value, r.other, r.visitors.qualifier])).toEqual([
      ["pro", false, "estimated"],
      [null, true, "suppressed"],
    ]);
    expect(Math.abs(rows[0]!.visitors.value! - 13)).toBeLessThanOrEqual(5);
  });

  it("refuses days before raw retention (422 naming dimension), the closed hours and a malformed name (400)", async () => {
    const old = await f.admin("GET", `/api/v1/breakdown?site=${site}&from=2020-01-01&to=2020-01-07&dimension=prop:plan`);
    expect([old.status, old.body.field]).toEqual([422, "dimension"]);
    expect(old.body.detail).toContain("WREN_RAW_RETENTION_DAYS");
    const today = await f.admin("GET", `/api/v1/breakdown?site=${site}&period=today&dimension=prop:plan`);
    expect([today.status, today.body.field]).toEqual([400, "dimension"]);
    const bad = await f.admin("GET", `/api/v1/breakdown?site=${site}&period=day&dimension=prop:bad%20name`);
    expect([bad.status, bad.body.field]).toEqual([400, "dimension"]);
  });
});
