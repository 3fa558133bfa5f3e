/**
 * GET /api/v1/sites/{id}/arrivals on the real stack: a real beacon through the collector makes
 * the site's first day (the band hidden below k sessions, the next publication at the end of the
 * running local hour), and every hostile call — no key, the wrong scope, a site off the key's
 * allowlist, a junk or unknown id — is a problem+json refusal that writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA } from "../collector/helpers";
import { client } from "../helpers/http";
import { waitForPublication } from "../helpers/stack";
import { apiFixture, type ApiFixture } from "./fixtures";

const HOUR = 3_600_000;
let f: ApiFixture;
let site: string;
let other: string;

beforeAll(async () => {
  f = await apiFixture();
  site = (await f.makeSite("arrivals.example")).id;
  other = (await f.makeSite("arrivals-other.example")).id;
}, 60_000);
afterAll(() => f?.close());

/** Rows of the tables a read could touch, to show a refusal wrote nothing. */
async function written(): Promise<Record<string, number>> {
  const db = f.database();
  const out: Record<string, number> = {};
  for (const table of ["sites", "site_beacons", "sessions", "events", "goals", "api_keys"]) {
    out[table] = Number((await db.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
  }
  return out;
}

describe("GET /api/v1/sites/{id}/arrivals", () => {
  it("waits before the first beacon, then names it and hides the beacons of fewer than k sessions", async () => {
    const reader = await f.makeKey(["read:reports"], [site]);
    const waiting = await reader.call("GET", `/api/v1/sites/${site}/arrivals`);
    expect(waiting.status).toBe(200);
    expect(waiting.body).toMatchObject({
      site,
      timezone: "UTC",
      k: 5,
      status: "waiting",
      first_beacon: null,
      counted_through: null,
      beacons: { low: 0, high: 0, qualifier: "exact" },
    });

    const sent = await fetch(`${f.stack.url}/e`, {
      method: "POST",
      headers: { "content-type": "text/plain", origin: "https://arrivals.example", "user-agent": BROWSER_UA },
      body: JSON.stringify({ site, session: "arrivals-first-visitor", events: [{ type: "pageview", path: "/" }] }),
    });
    expect(sent.status).toBe(202);
    await waitForPublication(f.stack.url);
    const verification = await f.admin("GET", `/api/v1/sites/${site}/verification`);
    const res = await reader.call("GET", `/api/v1/sites/${site}/arrivals`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(Object.keys(res.body).sort()).toEqual([
      "beacons",
      "counted_through",
      "first_beacon",
      "k",
      "next_figures",
      "site",
      "status",
      "timezone",
      "window_end",
    ]);
    expect(res.body).toMatchObject({
      status: "first_day",
      first_beacon: verification.body.first_seen,
      window_end: new Date(Date.parse(verification.body.first_seen) + 24 * HOUR).toISOString(),
      counted_through: null,
      beacons: { low: null, high: null, qualifier: "suppressed" },
    });
    // UTC site: the running hour ends on the hour; its figures are published 15 s later.
    const health = (await f.admin("GET", "/healthz")).body;
    const through = Date.parse(health.publisher.published_through);
    const hourEnd = through - (through % HOUR) + HOUR;
    expect([new Date(hourEnd + 15_000).toISOString(), new Date(hourEnd + HOUR + 15_000).toISOString()]).toContain(
      res.body.next_figures.hour,
    );
    const midnight = Date.parse(new Date(through).toISOString().slice(0, 10)) + 24 * HOUR;
    expect([new Date(midnight + 15_000).toISOString(), new Date(midnight + 24 * HOUR + 15_000).toISOString()]).toContain(
      res.body.next_figures.day,
    );
  });

  it("refuses no key, a bad key, the wrong scope, a site off the allowlist and a junk or unknown id, writing nothing", async () => {
    const wrongScope = await f.makeKey(["read:sites", "read:sessions", "write:sites"], [site]);
    const elsewhere = await f.makeKey(["read:reports"], [other]);
    const before = await written();
    const cases: [string, Awaited<ReturnType<ReturnType<typeof client>>>, number, Record<string, unknown>][] = [
      ["no key", await client(f.stack.url)("GET", `/api/v1/sites/${site}/arrivals`), 401, {}],
      ["unknown key", await client(f.stack.url, "wren_nope")("GET", `/api/v1/sites/${site}/arrivals`), 401, {}],
      ["wrong scope", await wrongScope.call("GET", `/api/v1/sites/${site}/arrivals`), 403, { required_scope: "read:reports" }],
      ["another site", await elsewhere.call("GET", `/api/v1/sites/${site}/arrivals`), 403, { field: "id" }],
      ["junk id", await f.admin("GET", "/api/v1/sites/'%20OR%201=1--/arrivals"), 400, { field: "id" }],
      ["NUL in the id", await f.admin("GET", "/api/v1/sites/site_%00/arrivals"), 400, {}],
      [
        "unknown site",
        await f.admin("GET", "/api/v1/sites/site_AAAAAAAAAAAAAAAA/arrivals"),
        404,
        { field: "id", detail: "No site site_AAAAAAAAAAAAAAAA." },
      ],
      ["a body-changing method", await f.admin("POST", `/api/v1/sites/${site}/arrivals`, {}), 405, {}],
    ];
    for (const [name, res, status, fields] of cases) {
      expect(res.status, name).toBe(status);
      expect(res.headers.get("content-type"), name).toBe("application/problem+json");
      expect(res.body, name).toMatchObject({ status, ...fields });
    }
    expect(await written()).toEqual(before);
  });
});
