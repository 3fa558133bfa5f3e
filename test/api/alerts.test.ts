/**
 * Alert rules on the real stack: make one (201, each destination's secret shown this once),
 * list, read, change (new destinations get new secrets; the state is kept) and delete it; the
 * defaults of each kind; a test notification queued in the outbox (202) and listed in the
 * rule's history; and every refusal — a scope the key lacks, another site's rule, a threshold
 * no report could show, settings of the other kind, a destination the sender may not reach,
 * bad or oversized bodies — a 4xx problem naming the field, with nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alertNotificationResource } from "../../worker/api/resources";
import { apiFixture, type ApiFixture } from "./fixtures";

let f: ApiFixture;
let site: string;
let other: string;
let goal: string;
let smokeGoal: string;
let otherGoal: string;

beforeAll(async () => {
  // Evaluation every second, so a rule that should fire does so while the test waits.
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60", WREN_ALERT_INTERVAL: "1" });
  site = (await f.makeSite("alerts.example")).id;
  other = (await f.makeSite("other-alerts.example")).id;
  goal = (await f.makeGoal(site, { kind: "event", match: "signup" })).id;
  smokeGoal = (await f.makeGoal(site, { kind: "event", match: "x", purpose: "smoke-test" })).id;
  otherGoal = (await f.makeGoal(other, { kind: "event", match: "signup" })).id;
}, 60_000);
afterAll(() => f?.close());

const HOOK = "https://hooks.example.com/wren";
/** HOOK as every answer but the one that made it shows it (domain/alert-rules/masked-url.ts). */
const HOOK_SHOWN = "https://hooks.example.com/…";
const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A threshold rule that never fires on an empty site: nothing is above 1000. */
const quiet = (over: Record<string, unknown> = {}) => ({
  site,
  metric: "pageviews",
  condition: "above",
  threshold: 1000,
  destinations: [{ url: HOOK }],
  ...over,
});

async function create(body: Record<string, unknown>) {
  const res = await f.admin("POST", "/api/v1/alerts", body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function ruleIds(siteId: string): Promise<string[]> {
  const res = await f.admin("GET", `/api/v1/alerts?site=${siteId}`);
  expect(res.status, res.text).toBe(200);
  return res.body.alerts.map((r: { id: string }) => r.id);
}

/**
 * What the API writes: the rules' settings (not the evaluator's state columns), their
 * destinations and the test notifications.
 */
async function stored(): Promise<unknown> {
  const db = f.database();
  const [rules, destinations, tests] = await db.batch(
    [
      "SELECT id, site_id, kind, metric, goal_id, condition, threshold, window_hours, for_minutes, within_minutes, enabled, updated_at FROM alert_rules ORDER BY id",
      "SELECT id, rule_id, position, url, format FROM alert_destinations ORDER BY id",
      "SELECT id FROM alert_outbox WHERE type = 'alert.test' ORDER BY id",
    ],
    "read",
  );
  return [rules!.rows, destinations!.rows, tests!.rows].map((rows) => rows.map((row) => ({ ...row })));
}

function expectProblem(
  res: { status: number; headers: Headers; body: any; text: string },
  status: number,
  field: string | RegExp,
  what: string,
) {
  expect([res.status, res.headers.get("content-type")], `${what}: ${res.text}`).toEqual([status, "application/problem+json"]);
  if (typeof field === "string") expect(res.body.field, what).toBe(field);
  else expect(res.body.field, what).toMatch(field);
  expect(res.body.detail.length, what).toBeGreaterThan(0);
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("make, read, change and delete a rule", () => {
  it("makes a rule (201) with each destination's secret, this once; reading it again shows none", async () => {
    const before = Date.now();
    const res = await f.admin("POST", "/api/v1/alerts", {
      site,
      metric: "goal",
      goal_id: goal,
      condition: "above",
      threshold: 50,
      window_hours: 6,
      for_minutes: 10,
      destinations: [{ url: HOOK }, { url: "https://hooks.slack.com/services/T0/B0/XXXX", format: "slack" }],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.body).toEqual({
      id: expect.stringMatching(/^alr_[A-Za-z0-9_-]{16}$/),
      site,
      kind: "threshold",
      metric: "goal",
      goal_id: goal,
      condition: "above",
      threshold: 50,
      window_hours: 6,
      for_minutes: 10,
      within_minutes: null,
      enabled: true,
      destinations: [
        { id: expect.stringMatching(/^dst_/), url: HOOK, format: "standard", secret: expect.stringMatching(SECRET) },
        {
          id: expect.stringMatching(/^dst_/),
          url: "https://hooks.slack.com/services/T0/B0/XXXX",
          format: "slack",
          secret: expect.stringMatching(SECRET),
        },
      ],
      state: {
        status: "ok",
        since: expect.stringMatching(ISO),
        pending_since: null,
        figure: null,
        evaluated_at: null,
        deployment_id: null,
      },
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 1000);
    const [first, second] = res.body.destinations;
    expect(first.secret).not.toBe(second.secret);

    const got = await f.admin("GET", `/api/v1/alerts/${res.body.id}`);
    expect(got.status, got.text).toBe(200);
    expect(got.text).not.toContain("whsec_");
    expect(got.body.destinations).toEqual([
      { id: first.id, url: HOOK_SHOWN, format: "standard" },
      { id: second.id, url: "https://hooks.slack.com/services/…", format: "slack" },
    ]);
    const { destinations: _made, state: _madeState, ...settings } = res.body;
    expect(got.body).toMatchObject(settings);

    const listed = await f.admin("GET", `/api/v1/alerts?site=${site}`);
    expect(listed.text).not.toContain("whsec_");
    expect(listed.body.alerts.map((r: { id: string }) => r.id)).toContain(res.body.id);
    expect((await f.admin("GET", `/api/v1/alerts/${res.body.id}/history`)).body).toEqual({
      rule: res.body.id,
      transitions: [],
      tests: [],
    });
  });

  it("defaults a threshold rule to 24 h, no wait, enabled; a deployment rule to 15 minutes; the kind to threshold", async () => {
    const threshold = await create(quiet());
    expect(threshold).toMatchObject({
      kind: "threshold",
      metric: "pageviews",
      condition: "above",
      threshold: 1000,
      window_hours: 24,
      for_minutes: 0,
      within_minutes: null,
      enabled: true,
      destinations: [{ url: HOOK, format: "standard" }],
    });
    const deployment = await create({ site, kind: "deployment_without_smoke", destinations: [{ url: HOOK }] });
    expect(deployment).toMatchObject({
      kind: "deployment_without_smoke",
      metric: null,
      goal_id: null,
      condition: null,
      threshold: null,
      window_hours: null,
      for_minutes: 0,
      within_minutes: 15,
      enabled: true,
    });
    const disabled = await create({
      site,
      kind: "deployment_without_smoke",
      within_minutes: 90,
      enabled: false,
      destinations: [{ url: HOOK }],
    });
    expect([disabled.within_minutes, disabled.enabled]).toEqual([90, false]);
  });

  it("takes any threshold on a smoke-test goal (its figures are exact)", async () => {
    for (const threshold of [0, 2, 4]) {
      const made = await create(quiet({ metric: "goal", goal_id: smokeGoal, threshold }));
      expect([made.goal_id, made.threshold]).toEqual([smokeGoal, threshold]);
    }
  });

  it("lists a site's rules oldest first, each site its own", async () => {
    const listSite = (await f.makeSite("list-alerts.example")).id;
    expect(await ruleIds(listSite)).toEqual([]);
    const made = [];
    for (const threshold of [5, 10, 20]) made.push((await create(quiet({ site: listSite, threshold }))).id);
    const listed = await f.admin("GET", `/api/v1/alerts?site=${listSite}`);
    expect(listed.body.alerts.map((r: { id: string; threshold: number }) => [r.id, r.threshold])).toEqual([
      [made[0], 5],
      [made[1], 10],
      [made[2], 20],
    ]);
    expect(await ruleIds(other)).not.toEqual(expect.arrayContaining(made));
  });

  it("changes a rule: new destinations get new ids and secrets (shown once); other changes show none", async () => {
    const rule = await create(quiet());
    const disabled = await f.admin("PATCH", `/api/v1/alerts/${rule.id}`, { enabled: false, for_minutes: 30, window_hours: 168 });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body).toMatchObject({
      enabled: false,
      for_minutes: 30,
      window_hours: 168,
      threshold: 1000,
      condition: "above",
    });
    expect(disabled.body.destinations).toEqual([{ id: rule.destinations[0].id, url: HOOK_SHOWN, format: "standard" }]);
    expect(Date.parse(disabled.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(rule.updated_at));

    const replaced = await f.admin("PATCH", `/api/v1/alerts/${rule.id}`, {
      destinations: [{ url: "https://a.example.com/hook" }, { url: "https://b.example.com/hook", format: "slack" }],
    });
    expect(replaced.status, replaced.text).toBe(200);
    const fresh = replaced.body.destinations;
    expect(fresh).toEqual([
      {
        id: expect.stringMatching(/^dst_/),
        url: "https://a.example.com/hook",
        format: "standard",
        secret: expect.stringMatching(SECRET),
      },
      {
        id: expect.stringMatching(/^dst_/),
        url: "https://b.example.com/hook",
        format: "slack",
        secret: expect.stringMatching(SECRET),
      },
    ]);
    expect(fresh.map((d: { id: string }) => d.id)).not.toContain(rule.destinations[0].id);
    expect(fresh.map((d: { secret: string }) => d.secret)).not.toContain(rule.destinations[0].secret);
    expect(replaced.body).toMatchObject({ enabled: false, for_minutes: 30, window_hours: 168 });

    const got = await f.admin("GET", `/api/v1/alerts/${rule.id}`);
    expect(got.text).not.toContain("whsec_");
    expect(got.body.destinations).toEqual(
      fresh.map(({ secret: _secret, ...d }: { secret: string; url: string }) => ({ ...d, url: d.url.replace(/\/hook$/, "/…") })),
    );
    const rows = await f
      .database()
      .execute({ sql: "SELECT id FROM alert_destinations WHERE rule_id = ? ORDER BY position", args: [rule.id] });
    expect(rows.rows.map((r) => r.id)).toEqual(fresh.map((d: { id: string }) => d.id));
  });

  it("keeps a firing rule's state when its threshold changes, and restarts the wait", async () => {
    // No smoke conversions at all: below 2 holds at once, and smoke-test figures are exact.
    const rule = await create(quiet({ metric: "goal", goal_id: smokeGoal, condition: "below", threshold: 2 }));
    const firing = await until(
      async () => (await f.admin("GET", `/api/v1/alerts/${rule.id}`)).body,
      (r) => r.state.status === "firing",
    );
    expect(firing.state, "the evaluator never fired the rule").toMatchObject({
      status: "firing",
      figure: { value: 0, qualifier: "exact" },
    });

    const changed = await f.admin("PATCH", `/api/v1/alerts/${rule.id}`, { threshold: 3 });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body.threshold).toBe(3);
    expect(changed.body.state).toMatchObject({ status: "firing", since: firing.state.since, pending_since: null });
    expect(changed.body.destinations[0]).not.toHaveProperty("secret");
    const history = (await f.admin("GET", `/api/v1/alerts/${rule.id}/history`)).body;
    expect(history.transitions.map((t: { from: string; to: string }) => [t.from, t.to])).toEqual([["ok", "firing"]]);
    expect(history.transitions[0].deliveries.map((d: { destination: string; type: string }) => [d.destination, d.type])).toEqual([
      [rule.destinations[0].id, "alert.firing"],
    ]);
  }, 30_000);

  it("deletes a rule (204) with its destinations and notifications; then it is gone (404)", async () => {
    const rule = await create(quiet());
    expect((await f.admin("POST", `/api/v1/alerts/${rule.id}/test`)).status).toBe(202);
    const deleted = await f.admin("DELETE", `/api/v1/alerts/${rule.id}`);
    expect([deleted.status, deleted.text]).toEqual([204, ""]);
    for (const [method, path] of [
      ["GET", `/api/v1/alerts/${rule.id}`],
      ["PATCH", `/api/v1/alerts/${rule.id}`],
      ["DELETE", `/api/v1/alerts/${rule.id}`],
      ["GET", `/api/v1/alerts/${rule.id}/history`],
      ["POST", `/api/v1/alerts/${rule.id}/test`],
    ] as const) {
      const res = await f.admin(method, path, method === "PATCH" ? { enabled: true } : undefined);
      expectProblem(res, 404, "id", `${method} ${path}`);
      expect(res.body.detail).toBe(`No alert rule ${rule.id} on a site this key may act on.`);
    }
    expect(await ruleIds(site)).not.toContain(rule.id);
    const db = f.database();
    for (const table of ["alert_destinations", "alert_outbox", "alert_transitions"]) {
      const rs = await db.execute({ sql: `SELECT count(*) AS n FROM ${table} WHERE rule_id = ?`, args: [rule.id] });
      expect(Number(rs.rows[0]!.n), table).toBe(0);
    }
  });

  it("deleting a rule's goal, or its site, deletes the rule with its destinations and undelivered notifications", async () => {
    const doomed = (await f.makeSite("doomed-alerts.example")).id;
    const doomedGoal = (await f.makeGoal(doomed, { kind: "event", match: "signup" })).id;
    const onGoal = await create(quiet({ site: doomed, metric: "goal", goal_id: doomedGoal, threshold: 50 }));
    const onSite = await create(quiet({ site: doomed }));
    for (const rule of [onGoal, onSite]) expect((await f.admin("POST", `/api/v1/alerts/${rule.id}/test`)).status).toBe(202);
    const left = async (ruleId: string) => {
      const db = f.database();
      const out: Record<string, number> = {};
      for (const table of ["alert_rules", "alert_destinations", "alert_outbox", "alert_transitions"]) {
        const column = table === "alert_rules" ? "id" : "rule_id";
        out[table] = Number(
          (await db.execute({ sql: `SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`, args: [ruleId] })).rows[0]!.n,
        );
      }
      return out;
    };
    const none = { alert_rules: 0, alert_destinations: 0, alert_outbox: 0, alert_transitions: 0 };
    expect((await f.admin("DELETE", `/api/v1/sites/${doomed}/goals/${doomedGoal}`)).status).toBe(204);
    expect((await f.admin("GET", `/api/v1/alerts/${onGoal.id}`)).status).toBe(404);
    expect(await left(onGoal.id)).toEqual(none);
    expect((await f.admin("DELETE", `/api/v1/sites/${doomed}`)).status).toBe(204);
    expect((await f.admin("GET", `/api/v1/alerts/${onSite.id}`)).status).toBe(404);
    expect(await left(onSite.id)).toEqual(none);
  });

  it("queues a test notification to each destination (202) through the outbox, listed in the history", async () => {
    const rule = await create(
      quiet({ destinations: [{ url: HOOK }, { url: "https://hooks.slack.com/services/T1/B1/YYYY", format: "slack" }] }),
    );
    const res = await f.admin("POST", `/api/v1/alerts/${rule.id}/test`);
    expect(res.status, res.text).toBe(202);
    expect(res.body).toEqual({
      queued: rule.destinations.map((d: { id: string }) => ({
        destination: d.id,
        webhook_id: expect.stringMatching(/^msg_[A-Za-z0-9_-]{16}$/),
      })),
    });
    const ids = res.body.queued.map((q: { webhook_id: string }) => q.webhook_id);
    expect(new Set(ids).size).toBe(2);

    const history = (await f.admin("GET", `/api/v1/alerts/${rule.id}/history`)).body;
    expect(history.transitions).toEqual([]);
    expect(history.tests.map((t: { webhook_id: string }) => t.webhook_id).sort()).toEqual([...ids].sort());
    for (const test of history.tests) {
      expect(test).toMatchObject({ type: "alert.test", status: expect.stringMatching(/^(pending|delivered|failed)$/) });
      expect(rule.destinations.map((d: { id: string }) => d.id)).toContain(test.destination);
    }

    // The queued body is the documented AlertNotification, exactly: parsing drops any key the schema lacks.
    const rows = await f
      .database()
      .execute({ sql: "SELECT payload FROM alert_outbox WHERE rule_id = ? ORDER BY id", args: [rule.id] });
    expect(rows.rows).toHaveLength(2);
    for (const row of rows.rows) {
      const payload = JSON.parse(String(row.payload));
      expect(alertNotificationResource.parse(payload)).toEqual(payload);
      expect(payload).toMatchObject({
        type: "alert.test",
        data: {
          rule: { id: rule.id, site, kind: "threshold", metric: "pageviews", threshold: 1000 },
          state: null,
          deployment: null,
          links: { history: expect.stringMatching(new RegExp(`/api/v1/alerts/${rule.id}/history$`)) },
        },
      });
    }
  });
});

describe("scopes and site allowlists", () => {
  it("reads with read:reports or write:alerts, changes with write:alerts only", async () => {
    const rule = await create(quiet());
    const reader = await f.makeKey(["read:reports"], [site]);
    const writer = await f.makeKey(["write:alerts"], [site]);
    const goals = await f.makeKey(["write:goals", "read:sites"], [site]);
    for (const key of [reader, writer]) {
      expect((await key.call("GET", `/api/v1/alerts?site=${site}`)).status).toBe(200);
      expect((await key.call("GET", `/api/v1/alerts/${rule.id}`)).body).toMatchObject({ id: rule.id });
      expect((await key.call("GET", `/api/v1/alerts/${rule.id}/history`)).status).toBe(200);
    }

    const before = await stored();
    for (const [method, path, body] of [
      ["POST", "/api/v1/alerts", quiet()],
      ["PATCH", `/api/v1/alerts/${rule.id}`, { enabled: false }],
      ["DELETE", `/api/v1/alerts/${rule.id}`, undefined],
      ["POST", `/api/v1/alerts/${rule.id}/test`, undefined],
    ] as const) {
      const res = await reader.call(method, path, body);
      expectProblem(res, 403, "authorization", `read:reports ${method} ${path}`);
      expect(res.body.detail).toBe("This key lacks the write:alerts scope.");
    }
    for (const path of [`/api/v1/alerts?site=${site}`, `/api/v1/alerts/${rule.id}`, `/api/v1/alerts/${rule.id}/history`]) {
      const res = await goals.call("GET", path);
      expectProblem(res, 403, "authorization", `write:goals GET ${path}`);
    }
    expect(await stored()).toEqual(before);
  });

  it("shows a destination's full URL only in the answer that made it; every other answer masks path and query", async () => {
    const urls = [
      "https://hooks.slack.com/services/T0SECRET/B0SECRET/xoxSECRET",
      "https://receiver.example:8443/wren?token=SECRET",
      "https://discord.example/api/webhooks/123/SECRET#frag",
      "https://receiver.example/SECRET-path-token-0123456789/x",
    ];
    const masked = [
      "https://hooks.slack.com/services/…",
      "https://receiver.example:8443/…",
      "https://discord.example/api/…",
      "https://receiver.example/…",
    ];
    const writer = await f.makeKey(["write:alerts"], [site]);
    const reader = await f.makeKey(["read:reports"], [site]);
    const made = await writer.call("POST", "/api/v1/alerts", quiet({ destinations: urls.map((url) => ({ url, format: "slack" })) }));
    expect(made.status, made.text).toBe(201);
    expect(made.body.destinations.map((d: { url: string }) => d.url)).toEqual(urls);
    const id = made.body.id;

    const answers = [];
    for (const key of [reader, writer]) {
      answers.push(await key.call("GET", `/api/v1/alerts/${id}`));
      answers.push(await key.call("GET", `/api/v1/alerts?site=${site}`));
      answers.push(await key.call("GET", `/api/v1/alerts/${id}/history`));
    }
    answers.push(await writer.call("PATCH", `/api/v1/alerts/${id}`, { enabled: false }));
    answers.push(await writer.call("POST", `/api/v1/alerts/${id}/test`));
    answers.push(await writer.call("GET", `/api/v1/alerts/${id}/history`));
    for (const res of answers) {
      expect(res.status, res.text).toBeLessThan(300);
      expect(res.text).not.toContain("SECRET");
      expect(res.text).not.toContain("token");
    }
    expect(answers[0]!.body.destinations.map((d: { url: string }) => d.url)).toEqual(masked);
    expect(answers[3]!.body.destinations.map((d: { url: string }) => d.url)).toEqual(masked);
    const listed = answers[1]!.body.alerts.find((r: { id: string }) => r.id === id);
    expect(listed.destinations.map((d: { url: string }) => d.url)).toEqual(masked);

    // Replacing the destinations shows the new ones in full, once.
    const replaced = await writer.call("PATCH", `/api/v1/alerts/${id}`, { destinations: [{ url: urls[1] }] });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.destinations).toEqual([{ id: expect.stringMatching(/^dst_/), url: urls[1], format: "standard", secret: expect.stringMatching(SECRET) }]);
    const again = await writer.call("GET", `/api/v1/alerts/${id}`);
    expect(again.body.destinations).toEqual([{ id: replaced.body.destinations[0].id, url: masked[1], format: "standard" }]);
  });

  it("a key on site A cannot make a rule on B (403), nor see or touch B's rules (404, as if missing)", async () => {
    const theirs = await create(quiet({ site: other }));
    const key = await f.makeKey(["write:alerts", "read:reports"], [site]);
    const before = await stored();
    const othersBefore = await ruleIds(other);

    const made = await key.call("POST", "/api/v1/alerts", quiet({ site: other }));
    expectProblem(made, 403, "site", "create on B");
    expect(made.body.detail).toBe(`This key may not act on site ${other}.`);
    expectProblem(await key.call("GET", `/api/v1/alerts?site=${other}`), 403, "site", "list B");
    for (const [method, path, body] of [
      ["GET", `/api/v1/alerts/${theirs.id}`, undefined],
      ["PATCH", `/api/v1/alerts/${theirs.id}`, { enabled: false, destinations: [{ url: "https://attacker.example.com/" }] }],
      ["DELETE", `/api/v1/alerts/${theirs.id}`, undefined],
      ["GET", `/api/v1/alerts/${theirs.id}/history`, undefined],
      ["POST", `/api/v1/alerts/${theirs.id}/test`, undefined],
    ] as const) {
      const res = await key.call(method, path, body);
      expectProblem(res, 404, "id", `${method} ${path}`);
      // Word for word the answer for a rule that does not exist.
      expect(res.body.detail).toBe(`No alert rule ${theirs.id} on a site this key may act on.`);
      expect(res.text).not.toContain(other);
    }
    // A rule on A naming B's goal is refused by the goal, not made.
    expectProblem(
      await key.call("POST", "/api/v1/alerts", quiet({ metric: "goal", goal_id: otherGoal, threshold: 10 })),
      422,
      "goal_id",
      "B's goal",
    );

    expect(await stored()).toEqual(before);
    expect(await ruleIds(other)).toEqual(othersBefore);
    expect((await f.admin("GET", `/api/v1/alerts/${theirs.id}`)).body).toMatchObject({
      enabled: true,
      destinations: [{ url: HOOK_SHOWN }],
    });
  });
});

describe("refusals name the field and write nothing", () => {
  const long = `https://hooks.example.com/${"a".repeat(2048)}`;
  const dws = { site: "", kind: "deployment_without_smoke", destinations: [{ url: HOOK }] };
  const cases: [string, () => Record<string, unknown>, number, string | RegExp][] = [
    // The threshold against k (5 by default): 1 or at least k, unless the goal is a smoke-test goal.
    ["threshold 0", () => quiet({ threshold: 0 }), 422, "threshold"],
    ["threshold 2", () => quiet({ threshold: 2 }), 422, "threshold"],
    ["threshold 3", () => quiet({ threshold: 3 }), 422, "threshold"],
    ["threshold 4", () => quiet({ threshold: 4 }), 422, "threshold"],
    ["threshold 4 on visitors", () => quiet({ metric: "visitors", condition: "below", threshold: 4 }), 422, "threshold"],
    [
      "threshold 2 on a goal that is not a smoke test",
      () => quiet({ metric: "goal", goal_id: goal, threshold: 2 }),
      422,
      "threshold",
    ],
    ["threshold -1", () => quiet({ threshold: -1 }), 422, "threshold"],
    ["threshold 2.5", () => quiet({ threshold: 2.5 }), 422, "threshold"],
    ["threshold as a string", () => quiet({ threshold: "1000" }), 422, "threshold"],
    ["threshold 1e10", () => quiet({ threshold: 1e10 }), 422, "threshold"],
    ["no threshold", () => quiet({ threshold: undefined }), 422, "threshold"],
    // The goal of a goal metric.
    ["metric goal without goal_id", () => quiet({ metric: "goal" }), 422, "goal_id"],
    ["goal of another site", () => quiet({ metric: "goal", goal_id: otherGoal }), 422, "goal_id"],
    ["goal that does not exist", () => quiet({ metric: "goal", goal_id: "goal_AAAAAAAAAAAAAAAA" }), 422, "goal_id"],
    ["goal_id on pageviews", () => quiet({ goal_id: goal }), 422, "goal_id"],
    ["goal_id that is not an id", () => quiet({ metric: "goal", goal_id: "goal_'; DROP TABLE alert_rules;--" }), 422, "goal_id"],
    ["no metric", () => quiet({ metric: undefined }), 422, "metric"],
    ["unknown metric", () => quiet({ metric: "revenue" }), 422, "metric"],
    ["no condition", () => quiet({ condition: undefined }), 422, "condition"],
    ["unknown condition", () => quiet({ condition: "equals" }), 422, "condition"],
    ["unknown kind", () => quiet({ kind: "anomaly" }), 422, "kind"],
    // Settings of the other kind.
    ["within_minutes on a threshold rule", () => quiet({ within_minutes: 15 }), 422, "within_minutes"],
    ["metric on deployment_without_smoke", () => ({ ...dws, site, metric: "pageviews" }), 422, "metric"],
    ["threshold on deployment_without_smoke", () => ({ ...dws, site, threshold: 1 }), 422, "threshold"],
    ["condition on deployment_without_smoke", () => ({ ...dws, site, condition: "below" }), 422, "condition"],
    ["goal_id on deployment_without_smoke", () => ({ ...dws, site, goal_id: smokeGoal }), 422, "goal_id"],
    ["window_hours on deployment_without_smoke", () => ({ ...dws, site, window_hours: 24 }), 422, "window_hours"],
    ["for_minutes on deployment_without_smoke", () => ({ ...dws, site, for_minutes: 0 }), 422, "for_minutes"],
    // Bounds (a schema error in a body is a 422 naming the field).
    ["window_hours 0", () => quiet({ window_hours: 0 }), 422, "window_hours"],
    ["window_hours 169", () => quiet({ window_hours: 169 }), 422, "window_hours"],
    ["for_minutes -1", () => quiet({ for_minutes: -1 }), 422, "for_minutes"],
    ["for_minutes over a week", () => quiet({ for_minutes: 10_081 }), 422, "for_minutes"],
    ["within_minutes 0", () => ({ ...dws, site, within_minutes: 0 }), 422, "within_minutes"],
    ["within_minutes over a day", () => ({ ...dws, site, within_minutes: 1441 }), 422, "within_minutes"],
    ["enabled as a string", () => quiet({ enabled: "yes" }), 422, "enabled"],
    // Destinations.
    [
      "6 destinations",
      () => quiet({ destinations: Array.from({ length: 6 }, (_, i) => ({ url: `${HOOK}/${i}` })) }),
      422,
      "destinations",
    ],
    ["no destinations", () => quiet({ destinations: [] }), 422, "destinations"],
    ["destinations missing", () => quiet({ destinations: undefined }), 422, "destinations"],
    ["destinations as a string", () => quiet({ destinations: HOOK }), 422, "destinations"],
    [
      "a destination's own secret",
      () => quiet({ destinations: [{ url: HOOK, secret: "whsec_bWluZQ==" }] }),
      422,
      "destinations.0.secret",
    ],
    ["unknown format", () => quiet({ destinations: [{ url: HOOK, format: "discord" }] }), 422, "destinations.0.format"],
    ["url with credentials", () => quiet({ destinations: [{ url: "https://user:pw@hooks.example.com/" }] }), 422, "url"],
    ["ftp url", () => quiet({ destinations: [{ url: "ftp://hooks.example.com/" }] }), 422, "url"],
    ["plain http", () => quiet({ destinations: [{ url: "http://hooks.example.com/" }] }), 422, "url"],
    ["127.0.0.2", () => quiet({ destinations: [{ url: "https://127.0.0.2/" }] }), 422, "url"],
    ["[::1]", () => quiet({ destinations: [{ url: "https://[::1]/" }] }), 422, "url"],
    ["localhost", () => quiet({ destinations: [{ url: "https://localhost:8443/" }] }), 422, "url"],
    ["a name under localhost", () => quiet({ destinations: [{ url: "https://api.localhost/" }] }), 422, "url"],
    ["a single-label name", () => quiet({ destinations: [{ url: "https://intranet/" }] }), 422, "url"],
    ["a .internal name", () => quiet({ destinations: [{ url: "https://metadata.google.internal/" }] }), 422, "url"],
    ["the metadata address", () => quiet({ destinations: [{ url: "https://169.254.169.254/latest/meta-data/" }] }), 422, "url"],
    ["a private address", () => quiet({ destinations: [{ url: "https://10.0.0.1/" }] }), 422, "url"],
    ["0.0.0.0", () => quiet({ destinations: [{ url: "https://0.0.0.0/" }] }), 422, "url"],
    ["loopback as hex", () => quiet({ destinations: [{ url: "https://0x7f000001/" }] }), 422, "url"],
    ["loopback as a decimal", () => quiet({ destinations: [{ url: "https://2130706433/" }] }), 422, "url"],
    ["IPv4-mapped loopback", () => quiet({ destinations: [{ url: "https://[::ffff:127.0.0.1]/" }] }), 422, "url"],
    ["unique-local IPv6", () => quiet({ destinations: [{ url: "https://[fd00::1]/" }] }), 422, "url"],
    ["the second destination refused", () => quiet({ destinations: [{ url: HOOK }, { url: "https://127.0.0.1/" }] }), 422, "url"],
    // Hostile strings.
    ["javascript:", () => quiet({ destinations: [{ url: "javascript:alert(1)" }] }), 422, "url"],
    ["data:", () => quiet({ destinations: [{ url: "data:text/html,<script>alert(1)</script>" }] }), 422, "url"],
    ["a relative url", () => quiet({ destinations: [{ url: "/api/v1/keys" }] }), 422, "url"],
    ["an empty url", () => quiet({ destinations: [{ url: "" }] }), 422, "url"],
    ["a url over 2048 characters", () => quiet({ destinations: [{ url: long }] }), 422, "destinations.0.url"],
    ["fullwidth localhost", () => quiet({ destinations: [{ url: "https://ｌｏｃａｌｈｏｓｔ/" }] }), 422, "url"],
    ["loopback in enclosed digits", () => quiet({ destinations: [{ url: "https://①②⑦.0.0.1/" }] }), 422, "url"],
    ["a right-to-left override in the host", () => quiet({ destinations: [{ url: "https://\u202Emoc.elpmaxe/" }] }), 422, "url"],
    // Refused as the body is parsed (no route stores NUL), which names the field by its whole path.
    ["a NUL in the host", () => quiet({ destinations: [{ url: "https://hooks\u0000.example.com/" }] }), 422, "destinations.0.url"],
    ["a space in the host", () => quiet({ destinations: [{ url: "https://hooks example.com/" }] }), 422, "url"],
    ["a url that is not a string", () => quiet({ destinations: [{ url: { href: HOOK } }] }), 422, "destinations.0.url"],
    // The body's shape.
    ["unknown field", () => quiet({ secret: "mine" }), 422, "secret"],
    ["a state of its own", () => quiet({ state: "firing" }), 422, "state"],
    ["no site", () => quiet({ site: undefined }), 422, "site"],
    ["a site id that is not one", () => quiet({ site: "site_ü\u202E" }), 422, "site"],
    ["a site that does not exist", () => quiet({ site: "site_AAAAAAAAAAAAAAAA" }), 404, "site"],
  ];

  for (const [name, body, status, field] of cases) {
    it(`${name} → ${status} naming ${field}`, async () => {
      const before = await stored();
      const listed = await ruleIds(site);
      const res = await f.admin("POST", "/api/v1/alerts", body());
      expectProblem(res, status, field, name);
      if (field === "url") expect(res.body.pointer).toMatch(/^\/destinations\/\d\/url$/);
      expect(await stored()).toEqual(before);
      expect(await ruleIds(site)).toEqual(listed);
    });
  }

  it("a threshold of exactly k is taken, and so is 1 (none at all)", async () => {
    expect((await create(quiet({ threshold: 5 }))).threshold).toBe(5);
    expect((await create(quiet({ condition: "below", threshold: 1, enabled: false }))).threshold).toBe(1);
  });

  it("refuses bodies that are too large, not JSON or not declared as JSON, and malformed ids", async () => {
    const before = await stored();
    const raw = (path: string, body: string, headers: Record<string, string>, method = "POST") =>
      fetch(`${f.stack.url}${path}`, { method, headers: { authorization: `Bearer ${f.stack.adminKey}`, ...headers }, body });
    const json = { "content-type": "application/json" };
    const check = async (response: Response, status: number, field: string, what: string) => {
      const text = await response.text();
      expectProblem({ status: response.status, headers: response.headers, body: JSON.parse(text), text }, status, field, what);
    };
    await check(
      await raw("/api/v1/alerts", JSON.stringify({ ...quiet(), pad: "p".repeat(70_000) }), json),
      413,
      "body",
      "oversize",
    );
    await check(
      await raw(
        "/api/v1/alerts",
        JSON.stringify(quiet({ destinations: Array.from({ length: 5 }, () => ({ url: `${HOOK}/${"a".repeat(20_000)}` })) })),
        json,
      ),
      413,
      "body",
      "oversize urls",
    );
    await check(await raw("/api/v1/alerts", '{"site": ', json), 400, "body", "malformed JSON");
    await check(
      await raw("/api/v1/alerts", JSON.stringify(quiet()), { "content-type": "text/plain" }),
      415,
      "content-type",
      "text/plain",
    );
    await check(await raw("/api/v1/alerts", "[1,2,3]", json), 422, "body", "an array");
    const rule = await create(quiet());
    const made = await stored();
    await check(
      await raw(`/api/v1/alerts/${rule.id}`, JSON.stringify({ enabled: false, pad: "p".repeat(70_000) }), json, "PATCH"),
      413,
      "body",
      "oversize PATCH",
    );
    for (const id of ["nope", "alr_", "alr_../../keys", "site_AAAAAAAAAAAAAAAA", `alr_${"A".repeat(41)}`]) {
      const res = await f.admin("GET", `/api/v1/alerts/${encodeURIComponent(id)}`);
      expectProblem(res, 400, "id", id);
    }
    expectProblem(await f.admin("GET", "/api/v1/alerts"), 400, "site", "list without a site");
    expectProblem(
      await f.admin("GET", "/api/v1/alerts?site=site_AAAAAAAAAAAAAAAA"),
      404,
      "site",
      "list of a site that does not exist",
    );
    expectProblem(await f.admin("GET", `/api/v1/alerts?site=${site}&all=1`), 400, "all", "unknown parameter");
    expect(await stored()).toEqual(made);
    expect((made as unknown[][])[0]!.length).toBe((before as unknown[][])[0]!.length + 1);
  });

  it("refuses bad changes with the field named, and leaves the rule as it was", async () => {
    const rule = await create(quiet({ threshold: 10 }));
    const deployment = await create({ site, kind: "deployment_without_smoke", destinations: [{ url: HOOK }] });
    const before = await stored();
    const changes: [string, string, Record<string, unknown>, number, string][] = [
      ["threshold 3", rule.id, { threshold: 3 }, 422, "threshold"],
      ["threshold 0", rule.id, { threshold: 0 }, 422, "threshold"],
      ["within_minutes on a threshold rule", rule.id, { within_minutes: 20 }, 422, "within_minutes"],
      ["window_hours 0", rule.id, { window_hours: 0 }, 422, "window_hours"],
      ["window_hours 169", rule.id, { window_hours: 169 }, 422, "window_hours"],
      [
        "a refused destination",
        rule.id,
        { enabled: false, destinations: [{ url: HOOK }, { url: "https://[::1]/" }] },
        422,
        "url",
      ],
      ["6 destinations", rule.id, { destinations: Array.from({ length: 6 }, () => ({ url: HOOK })) }, 422, "destinations"],
      ["no destinations", rule.id, { destinations: [] }, 422, "destinations"],
      ["a new metric", rule.id, { metric: "visitors" }, 422, "metric"],
      ["a new goal", rule.id, { goal_id: otherGoal }, 422, "goal_id"],
      ["another site", rule.id, { site: other }, 422, "site"],
      ["another kind", rule.id, { kind: "deployment_without_smoke" }, 422, "kind"],
      ["a state", rule.id, { state: "ok" }, 422, "state"],
      ["threshold on deployment_without_smoke", deployment.id, { threshold: 5 }, 422, "threshold"],
      ["condition on deployment_without_smoke", deployment.id, { condition: "below" }, 422, "condition"],
      ["window_hours on deployment_without_smoke", deployment.id, { window_hours: 24 }, 422, "window_hours"],
      ["for_minutes on deployment_without_smoke", deployment.id, { for_minutes: 5 }, 422, "for_minutes"],
      ["within_minutes 0", deployment.id, { within_minutes: 0 }, 422, "within_minutes"],
    ];
    for (const [name, id, body, status, field] of changes) {
      const res = await f.admin("PATCH", `/api/v1/alerts/${id}`, body);
      expectProblem(res, status, field, name);
    }
    expect(await stored()).toEqual(before);
    expect((await f.admin("GET", `/api/v1/alerts/${rule.id}`)).body).toMatchObject({
      threshold: 10,
      enabled: true,
      destinations: [{ url: HOOK_SHOWN }],
    });
  });
});
