/**
 * Deployment markers in the domain layer (worker/domain/deployments.ts) against the embedded
 * libSQL server: idempotent recording (external_id, webhook id), which marker each smoke-test
 * conversion belongs to (named by id, external_id or version, else by time; ties by id), the
 * list's order and cursor, and the reads the Overview uses (`latestDeployment`,
 * `findDeployment`) through the api's handle and through the reports' read-only one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  findDeployment,
  latestDeployment,
  listDeployments,
  recordDeployment,
  SMOKE_PER_MARKER,
  type DeploymentMarker,
} from "../../worker/domain/deployments";
import { insertSite } from "../../worker/domain/sites";
import { readOnly } from "../../worker/lib/read-only";
import { addGoal } from "../reports/helpers";
import { openDomainDb, problemOf, type DomainDb } from "./helpers";

let d: DomainDb;
let site: string;
let other: string;
const T = Date.now() - 20 * 3_600_000;
const MIN = 60_000;

beforeAll(async () => {
  d = await openDomainDb();
  site = (await insertSite(d.db, { name: "Deploys", domain: "deploys.example", createdByKey: null })).site.id;
  other = (await insertSite(d.db, { name: "Other", domain: "other.example", createdByKey: null })).site.id;
  await addGoal(d.client, site, "goal_smoke");
  await addGoal(d.client, other, "goal_other");
}, 60_000);
afterAll(() => d?.close());

let conversionIds = 0;
async function smoke(siteId: string, externalId: string | null, ts: number, attached = false): Promise<void> {
  const goal = siteId === site ? "goal_smoke" : "goal_other";
  const key = `id:${++conversionIds}`;
  await d.client.batch(
    [
      {
        sql: "INSERT INTO conversions (site_id, goal_id, source, event_key, ts) VALUES (?, ?, 's2s', ?, ?)",
        args: [siteId, goal, key, ts],
      },
      {
        sql: "INSERT INTO smoke_conversions (conversion_id, site_id, goal_id, external_id, attached, ts) SELECT id, site_id, goal_id, ?, ?, ts FROM conversions WHERE event_key = ?",
        args: [externalId, attached ? 1 : 0, key],
      },
    ],
    "write",
  );
}

const ids = (markers: DeploymentMarker[]) => markers.map((m) => m.id);
const smokeIds = (marker: DeploymentMarker | null) => marker?.smoke.map((s) => s.id);

describe("recordDeployment", () => {
  it("is idempotent per external_id and per webhook id, and refuses an unknown site", async () => {
    const first = await recordDeployment(d.db, other, { version: "v1", deployedAt: T, source: "api" });
    expect(first.created).toBe(true);
    expect(first.marker).toMatchObject({
      site: other,
      version: "v1",
      environment: "production",
      external_id: "v1:production",
      source: "api",
    });
    expect(await recordDeployment(d.db, other, { version: "v1", deployedAt: T + MIN, source: "api" })).toEqual({
      marker: first.marker,
      created: false,
    });

    const hooked = await recordDeployment(d.db, other, {
      version: "v2",
      externalId: "x-1",
      webhookId: "msg_1",
      deployedAt: T,
      source: "webhook",
    });
    const replay = await recordDeployment(d.db, other, {
      version: "v3",
      externalId: "x-2",
      webhookId: "msg_1",
      deployedAt: T,
      source: "webhook",
    });
    expect(replay).toEqual({ marker: hooked.marker, created: false });
    expect(await d.count("deployments", { column: "site_id", value: other })).toBe(2);
    // A time ahead of now (within the skew the API allows) is stored as now.
    const ahead = await recordDeployment(d.db, other, { version: "v4", deployedAt: Date.now() + 2 * MIN, source: "api" });
    expect(Date.parse(ahead.marker.deployed_at)).toBeLessThanOrEqual(Date.now());

    expect(await problemOf(recordDeployment(d.db, "site_nope", { version: "v1", source: "api" }))).toEqual({
      status: 404,
      detail: "No site site_nope.",
      field: "site",
    });
  });
});

describe("smoke-test conversions beside their marker", () => {
  let a: DeploymentMarker, b: DeploymentMarker, c: DeploymentMarker, tie: DeploymentMarker, staging: DeploymentMarker;

  beforeAll(async () => {
    // a (T), b (T+10), staging (T+15, b's version in another environment), c and tie (both T+20).
    a = (await recordDeployment(d.db, site, { version: "aaa", deployedAt: T, source: "api" })).marker;
    b = (await recordDeployment(d.db, site, { version: "bbb", externalId: "release-b", deployedAt: T + 10 * MIN, source: "api" }))
      .marker;
    staging = (
      await recordDeployment(d.db, site, { version: "bbb", environment: "staging", deployedAt: T + 15 * MIN, source: "api" })
    ).marker;
    c = (await recordDeployment(d.db, site, { version: "ccc", deployedAt: T + 20 * MIN, source: "api" })).marker;
    tie = (await recordDeployment(d.db, site, { version: "ddd", deployedAt: T + 20 * MIN, source: "api" })).marker;
    [c, tie] = [c, tie].sort((x, y) => (x.id < y.id ? -1 : 1)) as [DeploymentMarker, DeploymentMarker];

    await smoke(site, "before-any", T - MIN); // before the first marker: nobody's
    await smoke(site, null, T + MIN); // a, by time
    await smoke(site, a.id, T + 30 * MIN); // a, by id (though stamped after c)
    await smoke(site, "release-b", T + MIN); // b, by external_id (though stamped before it)
    await smoke(site, "bbb", T + 12 * MIN, true); // b: of version bbb's markers, the latest deployed before it
    await smoke(site, "bbb", T + 16 * MIN); // staging: the latest bbb deployed before it
    await smoke(site, "bbb", T - 5 * MIN); // b: none deployed before it, so the earliest
    await smoke(site, "unknown", T + 21 * MIN); // the later of the two markers at T+20
    await smoke(other, a.id, T + MIN); // another site's conversion never shows
  });

  it("assigns each conversion by name first, then by time, oldest first; ties go to the later id", async () => {
    const page = await listDeployments(d.db, site, { limit: 10 });
    expect(ids(page.deployments)).toEqual([tie.id, c.id, staging.id, b.id, a.id]);
    const by = Object.fromEntries(page.deployments.map((m) => [m.id, smokeIds(m)]));
    expect(by).toEqual({
      [a.id]: [null, a.id],
      [b.id]: ["bbb", "release-b", "bbb"],
      [staging.id]: ["bbb"],
      [c.id]: [],
      [tie.id]: ["unknown"],
    });
    expect(page.deployments.find((m) => m.id === b.id)!.smoke).toEqual([
      { id: "bbb", goal: "goal_smoke", at: new Date(T - 5 * MIN).toISOString(), attached: false },
      { id: "release-b", goal: "goal_smoke", at: new Date(T + MIN).toISOString(), attached: false },
      { id: "bbb", goal: "goal_smoke", at: new Date(T + 12 * MIN).toISOString(), attached: true },
    ]);
    // One marker alone, and every page of the list, read the same lists.
    for (const m of page.deployments) expect(await findDeployment(d.db, site, m.id)).toEqual(m);
    const paged: DeploymentMarker[] = [];
    let after;
    do {
      const next = await listDeployments(d.db, site, { limit: 2, after });
      paged.push(...next.deployments);
      after = next.next ?? undefined;
    } while (after);
    expect(paged).toEqual(page.deployments);
  });

  it("bounds the list by deployed_at", async () => {
    expect(ids((await listDeployments(d.db, site, { limit: 10, from: T + 10 * MIN, to: T + 15 * MIN })).deployments)).toEqual([
      staging.id,
      b.id,
    ]);
  });

  it("serves the Overview's reads through either handle: the latest marker at or before an instant, one by id", async () => {
    for (const handle of [d.db, readOnly(d.client as never)]) {
      expect(await latestDeployment(handle, site, T - 1)).toBeNull();
      expect((await latestDeployment(handle, site, T + 12 * MIN))?.id).toBe(b.id);
      expect(smokeIds(await latestDeployment(handle, site, T + 12 * MIN))).toEqual(["bbb", "release-b", "bbb"]);
      expect((await latestDeployment(handle, site, T + 20 * MIN))?.id).toBe(tie.id);
      expect(await findDeployment(handle, site, a.id)).toEqual(await findDeployment(d.db, site, a.id));
      expect(await findDeployment(handle, other, a.id)).toBeNull();
      expect(await findDeployment(handle, site, "dep_nope")).toBeNull();
    }
  });

  it(`lists at most ${SMOKE_PER_MARKER} conversions per marker, the oldest`, async () => {
    const busy = (await insertSite(d.db, { name: "Busy", domain: "busy.example", createdByKey: null })).site.id;
    await addGoal(d.client, busy, "goal_busy");
    const marker = (await recordDeployment(d.db, busy, { version: "v", deployedAt: T, source: "api" })).marker;
    await d.client.execute({
      sql:
        "INSERT INTO conversions (site_id, goal_id, source, event_key, ts) " +
        "SELECT ?, 'goal_busy', 's2s', 'busy:' || value, ? + value FROM json_each(?)",
      args: [busy, T, JSON.stringify(Array.from({ length: SMOKE_PER_MARKER + 5 }, (_, i) => i + 1))],
    });
    await d.client.execute({
      sql: "INSERT INTO smoke_conversions (conversion_id, site_id, goal_id, external_id, attached, ts) SELECT id, site_id, goal_id, event_key, 0, ts FROM conversions WHERE site_id = ?",
      args: [busy],
    });
    const found = await findDeployment(d.db, busy, marker.id);
    expect(found!.smoke).toHaveLength(SMOKE_PER_MARKER);
    expect(found!.smoke[0]!.id).toBe("busy:1");
    expect(found!.smoke[SMOKE_PER_MARKER - 1]!.id).toBe(`busy:${SMOKE_PER_MARKER}`);
  });
});
