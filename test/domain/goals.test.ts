/** Goals in the domain layer: idempotent creation on an existing site, lookups within a site, references a query makes, and deletion with what hangs on a goal. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGoal, deleteGoal, goalsOfSite, requireGoal, requireReportGoals, updateGoal } from "../../worker/domain/goals";
import { insertSite } from "../../worker/domain/sites";
import { addConversions, at } from "../reports/helpers";
import { openDomainDb, problemOf, type DomainDb } from "./helpers";

let d: DomainDb;
let shop: string;
let blog: string;
beforeAll(async () => {
  d = await openDomainDb();
  shop = (await insertSite(d.db, { name: "Shop", domain: "shop.example", createdByKey: null })).site.id;
  blog = (await insertSite(d.db, { name: "Blog", domain: "blog.example", createdByKey: null })).site.id;
}, 60_000);
afterAll(() => d?.close());

const signup = { name: "Signup", kind: "event", match: "signup", threshold: 0, purpose: null } as const;

describe("createGoal", () => {
  it("creates once; the same kind, match and threshold again returns the same goal", async () => {
    const first = await createGoal(d.db, shop, signup);
    expect(first.created).toBe(true);
    expect(first.goal).toMatchObject({
      siteId: shop,
      name: "Signup",
      kind: "event",
      match: "signup",
      threshold: 0,
      purpose: null,
    });
    expect(first.goal.id).toMatch(/^goal_[A-Za-z0-9_-]{16}$/);
    expect(await createGoal(d.db, shop, { ...signup, name: "Other name" })).toEqual({ goal: first.goal, created: false });
    // Another threshold is another goal; the same match on another site too.
    const deeper = await createGoal(d.db, shop, { name: "Read", kind: "scroll", match: "/blog/*", threshold: 75, purpose: null });
    const shallower = await createGoal(d.db, shop, {
      name: "Skim",
      kind: "scroll",
      match: "/blog/*",
      threshold: 25,
      purpose: null,
    });
    expect(deeper.goal.id).not.toBe(shallower.goal.id);
    expect((await createGoal(d.db, blog, signup)).goal.id).not.toBe(first.goal.id);
  });

  it("refuses a missing site with the one 404, writing nothing", async () => {
    const before = await d.count("goals");
    expect(await problemOf(createGoal(d.db, "site_nope", signup))).toEqual({
      status: 404,
      detail: "No site site_nope.",
      field: "id",
    });
    expect(await problemOf(goalsOfSite(d.db, "site_nope"))).toEqual({ status: 404, detail: "No site site_nope.", field: "id" });
    expect(await d.count("goals")).toBe(before);
  });

  it("lists a site's goals in creation order", async () => {
    const names = (await goalsOfSite(d.db, shop)).map((g) => g.name);
    expect(names).toEqual(["Signup", "Read", "Skim"]);
  });

  it("keeps the insert order of goals created in one millisecond, whatever their random ids", async () => {
    const site = (await insertSite(d.db, { name: "Same ms", domain: "same-ms.example", createdByKey: null })).site.id;
    // Ids that sort against the insert order, with one created_at: the order the API and reports list.
    const made: [string, string][] = [["goal_zzzzzzzzzzzzzzzz", "First"], ["goal_aaaaaaaaaaaaaaaa", "Second"]];
    for (const [id, name] of made)
      await d.client.execute({
        sql: "INSERT INTO goals (id, site_id, name, kind, match, threshold, created_at) VALUES (?, ?, ?, 'event', ?, 0, 1)",
        args: [id, site, name, name.toLowerCase()],
      });
    expect((await goalsOfSite(d.db, site)).map((g) => g.name)).toEqual(["First", "Second"]);
  });
});

describe("lookups within a site", () => {
  it("requireGoal finds a goal only on its own site", async () => {
    const { goal } = await createGoal(d.db, blog, { ...signup, match: "subscribe" });
    expect(await requireGoal(d.db, blog, goal.id)).toEqual(goal);
    expect(await problemOf(requireGoal(d.db, shop, goal.id))).toEqual({
      status: 404,
      detail: `No goal ${goal.id} on site ${shop}.`,
      field: "goal",
    });
  });

  it("requireReportGoals names the query field and the first goal that is not the site's (422)", async () => {
    const [a, b] = await goalsOfSite(d.db, shop);
    const foreign = (await goalsOfSite(d.db, blog))[0]!;
    await expect(requireReportGoals(d.db, shop, [a!.id, b!.id], "goals")).resolves.toBeUndefined();
    expect(await problemOf(requireReportGoals(d.db, shop, [a!.id, foreign.id, "goal_unknown"], "goals"))).toEqual({
      status: 422,
      detail: `goals: ${foreign.id} is not a goal of this site.`,
      field: "goals",
    });
    expect((await problemOf(requireReportGoals(d.db, shop, ["goal_unknown"], "goal"))).field).toBe("goal");
  });

  it("requireReportGoals refuses a smoke-test goal: its conversions are listed with the deployments, not in reports", async () => {
    const smoke = (await createGoal(d.db, shop, { name: "Smoke", kind: "event", match: "smoke", threshold: 0, purpose: "smoke-test" })).goal;
    expect(await problemOf(requireReportGoals(d.db, shop, [smoke.id], "goal"))).toEqual({
      status: 422,
      detail: `goal: ${smoke.id} is a smoke-test goal; its conversions are listed with the deployments (GET /api/v1/deployments), not in reports.`,
      field: "goal",
    });
  });
});

// Once on the embedded server, once where nothing cascades by itself: every delete is explicit.
describe.each([
  ["on the embedded server", {}],
  ["without foreign-key enforcement", { foreignKeys: false }],
] as const)("deleteGoal %s", (_name, options) => {
  let d: DomainDb;
  let shop: string;
  let blog: string;
  beforeAll(async () => {
    d = await openDomainDb(options);
    shop = (await insertSite(d.db, { name: "Shop", domain: "shop.example", createdByKey: null })).site.id;
    blog = (await insertSite(d.db, { name: "Blog", domain: "blog.example", createdByKey: null })).site.id;
  }, 60_000);
  afterAll(() => d?.close());

  it("deletes the goal with its conversions (smoke-test records too) and alert rules, and nothing of any other goal", async () => {
    const { goal: doomed } = await createGoal(d.db, shop, { ...signup, match: "doomed" });
    const { goal: kept } = await createGoal(d.db, shop, { ...signup, match: "kept" });
    const ts = at("2026-11-02");
    await addConversions(d.client, [
      { site: shop, goal: doomed.id, session: null, ts },
      { site: shop, goal: kept.id, session: null, ts },
    ]);
    await d.client.batch(
      [
        ...[
          ["alr_doomed", doomed.id],
          ["alr_kept", kept.id],
        ].flatMap(([rule, goal]) => [
          {
            sql: "INSERT INTO alert_rules (id, site_id, kind, metric, goal_id, condition, threshold, window_hours, state_since, updated_at) VALUES (?, ?, 'threshold', 'goal', ?, 'below', 1, 24, 0, 0)",
            args: [rule!, shop, goal!],
          },
          { sql: "INSERT INTO alert_destinations (id, rule_id, position, url, format) VALUES (?, ?, 0, 'https://hooks.example.com/', 'standard')", args: [`dst_${rule}`, rule!] },
          {
            sql: "INSERT INTO alert_outbox (id, rule_id, destination_id, type, payload, next_attempt_at, created_at) VALUES (?, ?, ?, 'alert.test', '{}', 0, 0)",
            args: [`msg_${rule}`, rule!, `dst_${rule}`],
          },
        ]),
        "INSERT INTO smoke_conversions (conversion_id, site_id, goal_id, external_id, attached, ts) SELECT id, site_id, goal_id, 'v1', 0, ts FROM conversions",
      ],
      "write",
    );

    await deleteGoal(d.db, shop, doomed.id);

    expect(await d.count("goals", { column: "id", value: doomed.id })).toBe(0);
    expect(await d.count("conversions", { column: "goal_id", value: doomed.id })).toBe(0);
    expect(await d.count("alert_rules", { column: "goal_id", value: doomed.id })).toBe(0);
    // The rules go with their destinations and undelivered notifications (nothing left to send).
    expect(await d.count("alert_destinations", { column: "rule_id", value: "alr_doomed" })).toBe(0);
    expect(await d.count("alert_outbox", { column: "rule_id", value: "alr_doomed" })).toBe(0);
    expect(await d.count("alert_destinations", { column: "rule_id", value: "alr_kept" })).toBe(1);
    expect(await d.count("alert_outbox", { column: "rule_id", value: "alr_kept" })).toBe(1);
    expect(await d.count("smoke_conversions", { column: "goal_id", value: doomed.id })).toBe(0);
    expect(await d.count("smoke_conversions", { column: "goal_id", value: kept.id })).toBe(1);
    expect(await d.count("goals", { column: "id", value: kept.id })).toBe(1);
    expect(await d.count("conversions", { column: "goal_id", value: kept.id })).toBe(1);
    expect(await d.count("alert_rules", { column: "goal_id", value: kept.id })).toBe(1);
  });

  it("refuses another site's goal: 404, and the goal stays", async () => {
    const { goal } = await createGoal(d.db, blog, { ...signup, match: "stays" });
    expect((await problemOf(deleteGoal(d.db, shop, goal.id))).status).toBe(404);
    expect(await d.count("goals", { column: "id", value: goal.id })).toBe(1);
  });
});

describe("updateGoal", () => {
  it("renames a goal and changes its purpose; what it counts stays", async () => {
    const { goal } = await createGoal(d.db, shop, { ...signup, match: "renamed" });
    const changed = await updateGoal(d.db, shop, goal.id, { name: "Trial started", purpose: "sales" });
    expect(changed).toEqual({ ...goal, name: "Trial started", purpose: "sales" });
    expect(await updateGoal(d.db, shop, goal.id, { purpose: null })).toEqual({ ...goal, name: "Trial started", purpose: null });
  });

  it("refuses to make a goal a smoke-test goal or unmake one (422 purpose), changing nothing", async () => {
    const { goal: visitors } = await createGoal(d.db, shop, { ...signup, match: "visitor-goal" });
    const { goal: smoke } = await createGoal(d.db, shop, { ...signup, match: "smoke", purpose: "smoke-test" });
    for (const [goal, purpose] of [
      [visitors, "smoke-test"],
      [smoke, "release checks"],
      [smoke, null],
    ] as const) {
      const problem = await problemOf(updateGoal(d.db, shop, goal.id, { name: "x", purpose }));
      expect(problem.status).toBe(422);
      expect(problem.field).toBe("purpose");
      expect(await requireGoal(d.db, shop, goal.id)).toEqual(goal);
    }
    // A smoke goal's name may change; its purpose stays.
    expect((await updateGoal(d.db, shop, smoke.id, { name: "Release smoke" })).purpose).toBe("smoke-test");
  });

  it("refuses another site's goal: 404, and the goal stays as it was", async () => {
    const { goal } = await createGoal(d.db, blog, { ...signup, match: "not-yours" });
    const problem = await problemOf(updateGoal(d.db, shop, goal.id, { name: "Stolen" }));
    expect(problem.status).toBe(404);
    expect(await requireGoal(d.db, blog, goal.id)).toEqual(goal);
  });
});
