/**
 * Deployment markers on the real stack: POST /api/v1/deployments (201, the same external_id →
 * 200 and the same marker), every refusal naming its field with nothing written, scopes and
 * site allowlists, the list (newest first, cursor, from/to), get and delete, smoke-test
 * conversions beside their marker (s2s only: a beacon named like the goal does not count), and
 * `wren deployments create|list`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA } from "../collector/helpers";
import { apiFixture, type ApiFixture } from "./fixtures";

let f: ApiFixture;
let site: string;
let other: string;

beforeAll(async () => {
  f = await apiFixture();
  site = (await f.makeSite("deploys.example")).id;
  other = (await f.makeSite("other-deploys.example")).id;
}, 60_000);
afterAll(() => f?.close());

const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

async function markersOf(siteId: string): Promise<number> {
  const rs = await f.database().execute({ sql: "SELECT count(*) AS n FROM deployments WHERE site_id = ?", args: [siteId] });
  return Number(rs.rows[0]!.n);
}

describe("POST /api/v1/deployments", () => {
  it("records a marker with every field (201), and the same external_id again is the same marker, unchanged (200)", async () => {
    const deployedAt = Date.now() - 10 * 60_000;
    const body = {
      site,
      version: "3f9c2ab",
      environment: "staging",
      external_id: "build-1001",
      description: "Checkout rewrite",
      url: "https://ci.example.com/builds/1001",
      deployed_at: iso(deployedAt),
    };
    const before = Date.now();
    const created = await f.admin("POST", "/api/v1/deployments", body);
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    expect(created.body).toEqual({
      id: expect.stringMatching(/^dep_[A-Za-z0-9_-]{16}$/),
      site,
      version: "3f9c2ab",
      environment: "staging",
      external_id: "build-1001",
      description: "Checkout rewrite",
      url: "https://ci.example.com/builds/1001",
      deployed_at: iso(deployedAt),
      source: "api",
      created_at: expect.any(String),
      smoke: [],
    });
    const createdAt = Date.parse(created.body.created_at);
    expect(createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(createdAt).toBeLessThanOrEqual(Date.now() + 1000);

    const again = await f.admin("POST", "/api/v1/deployments", { ...body, version: "something-else", description: "changed" });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual(created.body);
    expect(await markersOf(site)).toBe(1);
  });

  it("defaults environment to production, external_id to version:environment and deployed_at to now", async () => {
    const before = Date.now();
    const created = await f.admin("POST", "/api/v1/deployments", { site, version: "v1.4.0" });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      version: "v1.4.0",
      environment: "production",
      external_id: "v1.4.0:production",
      description: null,
      url: null,
    });
    expect(Date.parse(created.body.deployed_at)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(created.body.deployed_at)).toBeLessThanOrEqual(Date.now());
    expect((await f.admin("POST", "/api/v1/deployments", { site, version: "v1.4.0" })).body).toEqual(created.body);
    await f.admin("DELETE", `/api/v1/deployments/${created.body.id}`);
  });

  it("refuses invalid input with a problem naming the field, and writes nothing", async () => {
    const count = await markersOf(site);
    const cases: [Record<string, unknown>, number, string, string][] = [
      [
        { site, version: "a", deployed_at: iso(Date.now() + 10 * 60_000) },
        422,
        "deployed_at",
        "deployed_at: is in the future (at most 5 minutes of clock skew are allowed)",
      ],
      [
        { site, version: "a", deployed_at: iso(Date.now() - 25 * HOUR) },
        422,
        "deployed_at",
        "deployed_at: is more than 24 hours ago",
      ],
      [{ site, version: "a", deployed_at: "yesterday" }, 422, "deployed_at", "deployed_at: Invalid ISO datetime"],
      [{ site }, 422, "version", "version: is required"],
      [
        { site, version: "has space" },
        422,
        "version",
        "version: must be a commit SHA, tag or build number (1–128 printable characters, no spaces)",
      ],
      [{ site, version: "x".repeat(129) }, 422, "version", "version: Too big: expected string to have <=128 characters"],
      [
        { site, version: "a", url: "ftp://ci.example.com/1" },
        422,
        "url",
        "url: must be an http:// or https:// URL (without credentials)",
      ],
      [
        { site, version: "a", url: "javascript:alert(1)" },
        422,
        "url",
        "url: must be an http:// or https:// URL (without credentials)",
      ],
      [
        { site, version: "a", url: "https://user:pw@ci.example.com/" },
        422,
        "url",
        "url: must be an http:// or https:// URL (without credentials)",
      ],
      [
        // Refused as the body is parsed, before the schema: no route can store NUL (lib/body.ts).
        { site, version: "a", environment: "prod\u0000" },
        422,
        "environment",
        "environment: must be text without NUL characters or unpaired surrogates (\\ud800–\\udfff)",
      ],
      [
        { site, version: "a", environment: "prod\u0007" },
        422,
        "environment",
        "environment: must be printable text (1–64 characters)",
      ],
      [{ site, version: "a", deployer: "octocat" }, 422, "deployer", 'deployer: unknown field "deployer"'],
      [{ version: "a" }, 422, "site", "site: is required"],
      [{ site: "site_AAAAAAAAAAAAAAAA", version: "a" }, 404, "site", "No site site_AAAAAAAAAAAAAAAA."],
    ];
    for (const [body, status, field, detail] of cases) {
      const res = await f.admin("POST", "/api/v1/deployments", body);
      expect([res.status, res.headers.get("content-type"), res.body.field, res.body.detail], JSON.stringify(body)).toEqual([
        status,
        "application/problem+json",
        field,
        detail,
      ]);
    }
    expect(await markersOf(site)).toBe(count);
  });
});

describe("scopes and site allowlists", () => {
  it("needs write:deployments to record and delete, read:reports to read, and a site on the key's allowlist", async () => {
    const marker = (await f.admin("POST", "/api/v1/deployments", { site, version: "scoped-1" })).body;
    const count = await markersOf(site);
    const reader = await f.makeKey(["read:reports"], [site]);
    const writer = await f.makeKey(["write:deployments"], [site]);
    const outsider = await f.makeKey(["write:deployments", "read:reports"], [other]);

    const noScope = await reader.call("POST", "/api/v1/deployments", { site, version: "nope" });
    expect([noScope.status, noScope.body.field, noScope.body.detail]).toEqual([
      403,
      "authorization",
      "This key lacks the write:deployments scope.",
    ]);
    expect((await reader.call("DELETE", `/api/v1/deployments/${marker.id}`)).status).toBe(403);
    expect((await reader.call("POST", `/api/v1/sites/${site}/deployment-hook`)).status).toBe(403);
    const cannotRead = await writer.call("GET", `/api/v1/deployments?site=${site}`);
    expect([cannotRead.status, cannotRead.body.detail]).toEqual([403, "This key lacks the read:reports scope."]);
    expect((await writer.call("GET", `/api/v1/deployments/${marker.id}`)).status).toBe(403);

    const elsewhere = await outsider.call("POST", "/api/v1/deployments", { site, version: "nope" });
    expect([elsewhere.status, elsewhere.body.field, elsewhere.body.detail]).toEqual([
      403,
      "site",
      `This key may not act on site ${site}.`,
    ]);
    expect((await outsider.call("GET", `/api/v1/deployments?site=${site}`)).status).toBe(403);
    expect((await outsider.call("POST", `/api/v1/sites/${site}/deployment-hook`)).status).toBe(403);
    // Another site's marker reads as one that does not exist: the same 404, word for word.
    const hidden = await outsider.call("GET", `/api/v1/deployments/${marker.id}`);
    const missing = await outsider.call("GET", "/api/v1/deployments/dep_AAAAAAAAAAAAAAAA");
    expect([hidden.status, hidden.body.field, hidden.body.detail]).toEqual([404, "id", `No deployment ${marker.id}.`]);
    expect(missing.body.detail).toBe("No deployment dep_AAAAAAAAAAAAAAAA.");
    expect((await outsider.call("DELETE", `/api/v1/deployments/${marker.id}`)).status).toBe(404);
    expect(await markersOf(site)).toBe(count);

    expect((await reader.call("GET", `/api/v1/deployments/${marker.id}`)).body).toEqual(marker);
    expect((await writer.call("DELETE", `/api/v1/deployments/${marker.id}`)).status).toBe(204);
    expect(await markersOf(site)).toBe(count - 1);
  });
});

describe("GET /api/v1/deployments", () => {
  it("lists newest first with a cursor, bounded by from and to; get and delete one", async () => {
    const listed = (await f.makeSite("list-deploys.example")).id;
    const now = Date.now();
    const made = [];
    for (const hours of [5, 4, 3, 2, 1]) {
      const res = await f.admin("POST", "/api/v1/deployments", {
        site: listed,
        version: `r${hours}`,
        deployed_at: iso(now - hours * HOUR),
      });
      expect(res.status, res.text).toBe(201);
      made.push(res.body);
    }
    const newestFirst = [...made].reverse();
    const page = (query: string) => f.admin("GET", `/api/v1/deployments?site=${listed}${query}`);

    const first = await page("&limit=2");
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({
      deployments: newestFirst.slice(0, 2),
      next_cursor: `${Date.parse(made[3].deployed_at)}.${made[3].id}`,
    });
    const second = await page(`&limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.deployments).toEqual(newestFirst.slice(2, 4));
    const third = await page(`&limit=2&cursor=${second.body.next_cursor}`);
    expect(third.body).toEqual({ deployments: newestFirst.slice(4), next_cursor: null });
    expect((await page("")).body).toEqual({ deployments: newestFirst, next_cursor: null });

    const between = await page(`&from=${iso(now - 3.5 * HOUR)}&to=${encodeURIComponent(iso(now - 2 * HOUR))}`);
    expect(between.body.deployments.map((d: { version: string }) => d.version)).toEqual(["r2", "r3"]);
    // A date is the whole day in the site's zone (UTC here).
    const day = iso(now - 3 * HOUR).slice(0, 10);
    const onDay = await page(`&from=${day}&to=${day}`);
    expect(onDay.body.deployments).toEqual(newestFirst.filter((d) => d.deployed_at.slice(0, 10) === day));

    for (const [query, field] of [
      ["&cursor=bogus", "cursor"],
      ["&cursor=12.key_AAAAAAAAAAAAAAAA", "cursor"],
      ["&limit=0", "limit"],
      ["&from=2026-13-01", "from"],
      [`&from=${iso(now)}&to=${iso(now - HOUR)}`, "to"],
    ]) {
      const res = await page(query!);
      expect([res.status, res.headers.get("content-type"), res.body.field], query).toEqual([
        400,
        "application/problem+json",
        field,
      ]);
    }
    const unknown = await f.admin("GET", "/api/v1/deployments?site=site_AAAAAAAAAAAAAAAA");
    expect([unknown.status, unknown.body.field]).toEqual([404, "site"]);

    const one = await f.admin("GET", `/api/v1/deployments/${made[2].id}`);
    expect([one.status, one.body]).toEqual([200, made[2]]);
    expect((await f.admin("GET", "/api/v1/deployments/not-an-id")).body.field).toBe("id");
    expect((await f.admin("DELETE", `/api/v1/deployments/${made[2].id}`)).status).toBe(204);
    expect((await f.admin("GET", `/api/v1/deployments/${made[2].id}`)).status).toBe(404);
    expect((await f.admin("DELETE", `/api/v1/deployments/${made[2].id}`)).status).toBe(404);
    expect((await page("")).body.deployments.map((d: { version: string }) => d.version)).toEqual(["r1", "r2", "r4", "r5"]);
  });
});

describe("smoke-test conversions beside their marker", () => {
  it("lists each s2s conversion of a smoke-test goal with its id, goal, time and attachment, at once; beacons never count", async () => {
    const smokeSite = await f.makeSite("smoke-deploys.example");
    const smoke = await f.makeGoal(smokeSite.id, { name: "Smoke", kind: "event", match: "smoke-test", purpose: "smoke-test" });
    const signup = await f.makeGoal(smokeSite.id, { kind: "event", match: "signup" });
    const early = (
      await f.admin("POST", "/api/v1/deployments", {
        site: smokeSite.id,
        version: "a1b2c3d",
        deployed_at: iso(Date.now() - 2 * HOUR),
      })
    ).body;
    const latest = (
      await f.admin("POST", "/api/v1/deployments", {
        site: smokeSite.id,
        version: "e4f5a6b",
        deployed_at: iso(Date.now() - HOUR),
      })
    ).body;

    // A browser session, then beacons: a custom event named like the smoke goal's match does not count.
    const session = "SmokeSession0123456789";
    const beacon = await fetch(`${f.stack.url}/e`, {
      method: "POST",
      headers: { "content-type": "text/plain", origin: "https://smoke-deploys.example", "user-agent": BROWSER_UA },
      body: JSON.stringify({
        site: smokeSite.id,
        session,
        events: [
          { type: "pageview", path: "/" },
          { type: "event", path: "/", name: "smoke-test" },
          { type: "event", path: "/", name: "signup" },
        ],
      }),
    });
    expect(beacon.status).toBe(202);

    const post = (body: Record<string, unknown>) => f.admin("POST", "/api/v1/events", { site: smokeSite.id, ...body });
    const t0 = Date.now();
    expect((await post({ goal_id: smoke.id, id: early.id })).status).toBe(202);
    expect((await post({ goal_id: smoke.id, id: "e4f5a6b" })).status).toBe(202);
    expect((await post({ goal_id: smoke.id, id: "cron-check-7", session })).status).toBe(202);
    expect((await post({ goal_id: smoke.id })).status).toBe(202);
    // Not a smoke-test goal: never listed, whatever its id.
    expect((await post({ goal_id: signup.id, id: latest.id })).status).toBe(202);
    // A replay of the same id is one conversion, listed once.
    expect((await post({ goal_id: smoke.id, id: early.id })).body).toMatchObject({ accepted: 0, duplicates: 1 });
    const t1 = Date.now();

    const got = (await f.admin("GET", `/api/v1/deployments/${early.id}`)).body;
    expect(got.smoke).toEqual([{ id: early.id, goal: smoke.id, at: expect.any(String), attached: false }]);
    const at = Date.parse(got.smoke[0].at);
    expect(at).toBeGreaterThanOrEqual(t0 - 1000);
    expect(at).toBeLessThanOrEqual(t1 + 1000);

    // By version, then by time (the latest marker deployed before it), oldest first.
    const list = (await f.admin("GET", `/api/v1/deployments?site=${smokeSite.id}`)).body.deployments;
    expect(list.map((d: { id: string }) => d.id)).toEqual([latest.id, early.id]);
    expect(list[0].smoke.map((s: { id: string | null; goal: string; attached: boolean }) => [s.id, s.goal, s.attached])).toEqual([
      ["e4f5a6b", smoke.id, false],
      ["cron-check-7", smoke.id, true],
      [null, smoke.id, false],
    ]);
    expect(list[1].smoke).toEqual(got.smoke);

    // The beacon counted its signup conversion and nothing for the smoke-test goal.
    const db = f.database();
    const bySource = await db.execute({
      sql: "SELECT goal_id, source, count(*) AS n FROM conversions WHERE site_id = ? GROUP BY goal_id, source ORDER BY goal_id, source",
      args: [smokeSite.id],
    });
    expect(bySource.rows.map((r) => [r.goal_id, r.source, Number(r.n)]).sort()).toEqual(
      [
        [smoke.id, "s2s", 4],
        [signup.id, "beacon", 1],
        [signup.id, "s2s", 1],
      ].sort(),
    );
    expect(
      Number(
        (await db.execute({ sql: "SELECT count(*) AS n FROM smoke_conversions WHERE site_id = ?", args: [smokeSite.id] }))
          .rows[0]!.n,
      ),
    ).toBe(4);

    // A marker deployed later takes the conversions stamped after it; the named ones stay.
    const next = (await f.admin("POST", "/api/v1/deployments", { site: smokeSite.id, version: "f0f0f0f" })).body;
    expect(next.smoke).toEqual([]);
    expect((await f.admin("POST", "/api/v1/events", { site: smokeSite.id, goal_id: smoke.id, id: "after-next" })).status).toBe(
      202,
    );
    expect((await f.admin("GET", `/api/v1/deployments/${next.id}`)).body.smoke.map((s: { id: string }) => s.id)).toEqual([
      "after-next",
    ]);
    expect((await f.admin("GET", `/api/v1/deployments/${latest.id}`)).body.smoke).toEqual(list[0].smoke);

    // Deleting the goal deletes its smoke records with its conversions.
    expect((await f.admin("DELETE", `/api/v1/sites/${smokeSite.id}/goals/${smoke.id}`)).status).toBe(204);
    expect(
      Number(
        (await db.execute({ sql: "SELECT count(*) AS n FROM smoke_conversions WHERE site_id = ?", args: [smokeSite.id] }))
          .rows[0]!.n,
      ),
    ).toBe(0);
    expect((await f.admin("GET", `/api/v1/deployments/${early.id}`)).body.smoke).toEqual([]);
  });
});

describe("wren deployments", () => {
  it("creates (idempotently) and lists markers, validating flags like the API", async () => {
    const cliSite = (await f.makeSite("cli-deploys.example")).id;
    const args = [
      "deployments",
      "create",
      "--site",
      cliSite,
      "--version",
      "9.9.9",
      "--environment",
      "canary",
      "--url",
      "https://ci.example.com/9",
      "--json",
    ];
    const first = await f.stack.cli(args);
    expect(first.code, first.stderr).toBe(0);
    const marker = JSON.parse(first.stdout);
    expect(marker).toMatchObject({
      site: cliSite,
      version: "9.9.9",
      environment: "canary",
      external_id: "9.9.9:canary",
      url: "https://ci.example.com/9",
      source: "api",
      created: true,
    });
    const again = JSON.parse((await f.stack.cli(args)).stdout);
    expect(again).toEqual({ ...marker, created: false });

    const listed = await f.stack.cli(["deployments", "list", "--site", cliSite, "--json"]);
    const { created: _created, ...plain } = marker;
    expect(JSON.parse(listed.stdout)).toEqual({ deployments: [plain] });
    // The API reads the same marker.
    expect((await f.admin("GET", `/api/v1/deployments/${marker.id}`)).body).toEqual(plain);
    const human = await f.stack.cli(["deployments", "list", "--site", cliSite]);
    expect(human.stdout).toMatch(
      new RegExp(`^id\\s+version\\s+environment\\s+deployed_at\\s+source\\s+smoke\\n${marker.id}\\s+9\\.9\\.9\\s+canary\\s`),
    );

    const bad = await f.stack.cli(["deployments", "create", "--site", cliSite, "--version", "1", "--url", "ftp://x"]);
    expect([bad.code, bad.stderr.trim()]).toEqual([2, "wren: --url: must be an http:// or https:// URL (without credentials)"]);
    const missing = await f.stack.cli(["deployments", "create", "--site", cliSite]);
    expect([missing.code, missing.stderr.trim()]).toEqual([2, "wren: --version is required: what was deployed: a commit SHA, a tag (see `wren deployments create --help`)"]);
    expect((await f.stack.cli(["deployments", "list", "--site", "site_AAAAAAAAAAAAAAAA"])).code).toBe(1);
    expect(await markersOf(cliSite)).toBe(1);
  });
});
