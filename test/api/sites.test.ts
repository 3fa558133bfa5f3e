import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastCompleteDay } from "../../worker/reports/period";
import { addDays } from "../../worker/reports/timezone";
import { ROLLUP_TABLES } from "../../worker/reports/rollup";
import { waitForPublication } from "../helpers/stack";
import { apiFixture, type ApiFixture } from "./fixtures";

describe("sites and the registry", () => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await apiFixture();
  }, 60_000);
  afterAll(() => f?.stack.stop());

  it("POST /api/v1/sites answers 201 with the site, its snippet and its s2s token", async () => {
    const ci = await f.makeKey(["write:sites", "write:events"]);
    const res = await ci.call("POST", "/api/v1/sites", { name: "PR 42", domain: "PR-42.Preview.Example" });
    expect(res.status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(Object.keys(res.body).sort()).toEqual(["allowlist", "created_at", "domain", "id", "name", "s2s_token", "snippet", "timezone"]);
    expect(res.body).toMatchObject({ name: "PR 42", domain: "pr-42.preview.example", allowlist: ["pr-42.preview.example"], timezone: "UTC" });
    expect(res.body.id).toMatch(/^site_[A-Za-z0-9_-]{16}$/);
    expect(res.body.snippet).toBe(`<script defer src="${f.stack.url}/t.js" data-site="${res.body.id}"></script>`);
    expect(res.body.s2s_token).toMatch(new RegExp(`^${res.body.id}\\.[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(res.body.created_at)).toBeGreaterThan(Date.now() - 60_000);

    // A CI re-run posts the same domain again: the same site, 200.
    const again = await ci.call("POST", "/api/v1/sites", { name: "PR 42", domain: "pr-42.preview.example" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);

    // Another key limited elsewhere cannot take the domain over.
    const other = await f.makeKey(["write:sites"], [(await f.makeSite("elsewhere.example")).id]);
    const conflict = await other.call("POST", "/api/v1/sites", { name: "x", domain: "pr-42.preview.example" });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ status: 409, field: "domain" });
  });

  it("normalises IDNA domains and refuses anything but a hostname, naming the field", async () => {
    const res = await f.admin("POST", "/api/v1/sites", { name: "Bücher", domain: "Bücher.Example" });
    expect(res.status).toBe(201);
    expect(res.body.domain).toBe("xn--bcher-kva.example");
    for (const domain of ["https://shop.example", "shop.example/path", "shop.example:8443", "*.shop.example", ""]) {
      const bad = await f.admin("POST", "/api/v1/sites", { name: "x", domain });
      expect(bad.status, domain).toBe(422);
      expect(bad.body.field).toBe("domain");
    }
  });

  it("GET, PATCH and DELETE one site", async () => {
    const site = await f.makeSite("crud.example", "Before");
    const got = await f.admin("GET", `/api/v1/sites/${site.id}`);
    expect(got.status).toBe(200);
    expect(got.body.s2s_token).toBeUndefined();
    expect(got.body.name).toBe("Before");

    const patched = await f.admin("PATCH", `/api/v1/sites/${site.id}`, { name: "After" });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe("After");
    const domainChange = await f.admin("PATCH", `/api/v1/sites/${site.id}`, { domain: "other.example" });
    expect(domainChange.status).toBe(422);
    expect(domainChange.body.field).toBe("domain");

    expect((await f.admin("DELETE", `/api/v1/sites/${site.id}`)).status).toBe(204);
    const gone = await f.admin("GET", `/api/v1/sites/${site.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ status: 404, field: "id" });
    expect((await f.admin("DELETE", `/api/v1/sites/${site.id}`)).status).toBe(404);
  });

  it("takes an IANA time zone on create and PATCH, in canonical spelling, and refuses unknown ones", async () => {
    const created = await f.admin("POST", "/api/v1/sites", { name: "Berlin", domain: "tz.example", timezone: "europe/berlin" });
    expect(created.status).toBe(201);
    expect(created.body.timezone).toBe("Europe/Berlin");
    const patched = await f.admin("PATCH", `/api/v1/sites/${created.body.id}`, { timezone: "America/New_York" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Berlin", timezone: "America/New_York" });
    for (const timezone of ["Mars/Olympus_Mons", "UTC+2; DROP TABLE sites", ""]) {
      const bad = await f.admin("POST", "/api/v1/sites", { name: "x", domain: "tz-bad.example", timezone });
      expect(bad.status, timezone).toBe(422);
      expect(bad.body.field).toBe("timezone");
    }
    const cli = JSON.parse((await f.stack.cli(["sites", "create", "--name", "Tokyo", "--domain", "tokyo.example", "--timezone", "Asia/Tokyo", "--json"])).stdout);
    expect(cli.timezone).toBe("Asia/Tokyo");
  });

  it("deleting a site deletes its report rollups too", async () => {
    const site = await f.makeSite("rollups.example");
    const goal = await f.makeGoal(site.id, { kind: "event", match: "signup" });
    expect((await f.admin("POST", "/api/v1/events", { site: site.id, goal_id: goal.id })).status).toBe(202);
    await waitForPublication(f.stack.url);
    const db = f.stack.openDatabase();
    const rollupRows = async () => {
      let total = 0;
      for (const table of ROLLUP_TABLES) {
        total += Number((await db.execute({ sql: `SELECT count(*) AS n FROM ${table} WHERE site_id = ?`, args: [site.id] })).rows[0]!.n);
      }
      return total;
    };
    expect(await rollupRows()).toBeGreaterThan(0);
    expect((await f.admin("DELETE", `/api/v1/sites/${site.id}`)).status).toBe(204);
    expect(await rollupRows()).toBe(0);
    db.close();
  });

  it("rotating the token returns a new one (the CLI prints the same)", async () => {
    const site = await f.makeSite("rotate.example");
    const rotated = await f.admin("POST", `/api/v1/sites/${site.id}/token`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.id).toBe(site.id);
    expect(rotated.body.s2s_token).not.toBe(site.s2s_token);
    const cli = await f.stack.cli(["token", site.id]);
    expect(cli.stdout.trim()).toBe(rotated.body.s2s_token);
  });

  it("verification says unverified until a beacon arrives", async () => {
    const site = await f.makeSite("verify.example");
    const res = await f.admin("GET", `/api/v1/sites/${site.id}/verification`);
    expect(res.body).toEqual({ site: site.id, verified: false, first_seen: null, origin: null, page: null });
  });

  it("goals: create, re-create returns the same goal, list, delete", async () => {
    const site = await f.makeSite("goals.example");
    const body = { name: "Smoke test", kind: "event", match: "smoke-test", purpose: "smoke-test" };
    const created = await f.admin("POST", `/api/v1/sites/${site.id}/goals`, body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ site: site.id, name: "Smoke test", kind: "event", match: "smoke-test", threshold: 0, purpose: "smoke-test" });
    const again = await f.admin("POST", `/api/v1/sites/${site.id}/goals`, body);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);

    const time = await f.admin("POST", `/api/v1/sites/${site.id}/goals`, { kind: "time", match: "/pricing", threshold: 30 });
    expect(time.status).toBe(201);
    const list = await f.admin("GET", `/api/v1/sites/${site.id}/goals`);
    expect(list.body.goals.map((g: { id: string }) => g.id)).toEqual([created.body.id, time.body.id]);

    expect((await f.admin("DELETE", `/api/v1/sites/${site.id}/goals/${created.body.id}`)).status).toBe(204);
    expect((await f.admin("DELETE", `/api/v1/sites/${site.id}/goals/${created.body.id}`)).status).toBe(404);
    const missing = await f.admin("POST", "/api/v1/sites/site_doesnotexist/goals", body);
    expect(missing.status).toBe(404);
  });

  it("goals on the tracker's own events: outbound, download and not-found each in one step, refused when malformed, listed in the conversions report", async () => {
    const site = await f.makeSite("tracked-links.example");
    const create = (body: unknown) => f.admin("POST", `/api/v1/sites/${site.id}/goals`, body);
    const outbound = await create({ kind: "outbound" });
    expect(outbound.status).toBe(201);
    expect(outbound.body).toMatchObject({ kind: "outbound", match: "*", name: "outbound: *", threshold: 0 });
    const download = await create({ kind: "download", match: ".PDF zip" });
    expect(download.status).toBe(201);
    expect(download.body).toMatchObject({ kind: "download", match: "pdf zip", name: "download: pdf zip" });
    const notFound = await create({ kind: "not-found" });
    expect(notFound.body).toMatchObject({ kind: "not-found", match: "/*" });
    // The same goal again, as written another way, is the same goal.
    const again = await create({ kind: "download", match: "pdf, zip" });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(download.body.id);
    for (const [body, field] of [
      [{ kind: "outbound", match: "https://partner.example" }, "match"],
      [{ kind: "download", match: "pdf;rm -rf" }, "match"],
      [{ kind: "not-found", match: "missing" }, "match"],
      [{ kind: "download", threshold: 2 }, "threshold"],
      [{ kind: "page" }, "match"],
    ] as const) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.body.field, JSON.stringify(body)).toBe(field);
    }
    expect((await f.admin("GET", `/api/v1/sites/${site.id}/goals`)).body.goals).toHaveLength(3);
    await waitForPublication(f.stack.url);
    const report = await f.admin("GET", `/api/v1/conversions?site=${site.id}&period=day`);
    expect(report.status).toBe(200);
    // Every goal is a row (their order among equal figures is the report's own).
    expect(report.body.rows.map((r: { goal: { name: string; kind: string } }) => [r.goal.kind, r.goal.name]).sort()).toEqual([
      ["download", "download: pdf zip"],
      ["not-found", "not-found: /*"],
      ["outbound", "outbound: *"],
    ]);
  });

  it("PATCH a goal changes its name and purpose only; hostile or empty bodies change nothing", async () => {
    const site = await f.makeSite("goal-edit.example");
    const goal = (await f.admin("POST", `/api/v1/sites/${site.id}/goals`, { name: "Signup", kind: "event", match: "signup" })).body;
    const path = `/api/v1/sites/${site.id}/goals/${goal.id}`;
    // A report read before the rename is cached; the rename must not leave it stale.
    const reportNames = async () =>
      (await f.admin("GET", `/api/v1/conversions?site=${site.id}&period=day`)).body.rows.map((r: { goal: { name: string } }) => r.goal.name);
    await waitForPublication(f.stack.url);
    expect(await reportNames()).toEqual(["Signup"]);
    const renamed = await f.admin("PATCH", path, { name: "Trial started", purpose: "sales funnel" });
    expect(renamed.status).toBe(200);
    expect(await reportNames()).toEqual(["Trial started"]);
    expect(renamed.body).toEqual({ ...goal, name: "Trial started", purpose: "sales funnel" });
    const refused: [unknown, string][] = [
      [{}, "name"],
      [{ match: "other" }, "match"],
      [{ kind: "page" }, "kind"],
      [{ name: "x".repeat(101) }, "name"],
      [{ name: "" }, "name"],
      [{ purpose: "smoke-test" }, "purpose"],
      [{ name: ["array"] }, "name"],
    ];
    for (const [body, field] of refused) {
      const res = await f.admin("PATCH", path, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      expect(res.body.field, JSON.stringify(body)).toBe(field);
    }
    const notJson = await fetch(`${f.stack.url}${path}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${f.stack.adminKey}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect(notJson.status).toBe(400);
    const huge = await f.admin("PATCH", path, { name: "a", purpose: "p".repeat(200_000) });
    expect(huge.status).toBe(413);
    const other = await f.makeSite("goal-edit-other.example");
    expect((await f.admin("PATCH", `/api/v1/sites/${other.id}/goals/${goal.id}`, { name: "Moved" })).status).toBe(404);
    const list = await f.admin("GET", `/api/v1/sites/${site.id}/goals`);
    expect(list.body.goals).toEqual([{ ...goal, name: "Trial started", purpose: "sales funnel" }]);
  });

  it("sessions list answers an empty page for a new site", async () => {
    const site = await f.makeSite("sessions.example");
    const res = await f.admin("GET", `/api/v1/sessions?site=${site.id}&limit=10`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ days: [], k: 5, next_cursor: null, published_through: lastCompleteDay("UTC", Date.now()), timezone: "UTC", next_day_at: `${addDays(lastCompleteDay("UTC", Date.now()), 2)}T00:00:00.000Z` });
    const bad = await f.admin("GET", `/api/v1/sessions?site=${site.id}&limit=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.field).toBe("limit");
    const noSite = await f.admin("GET", "/api/v1/sessions");
    expect(noSite.status).toBe(400);
    expect(noSite.body.field).toBe("site");
  });
});
