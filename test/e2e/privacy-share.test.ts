/**
 * A shared dashboard link reads no more than a read:reports key (issue 40; docs/dashboard.md
 * "Sharing a dashboard"). A site gets a crowd and small groups through the real collector —
 * two visitors from a campaign labelled with an address, one on a page whose path carries a
 * token, a goal two of them reach — published on yesterday and seen live today. Then every read
 * the share page makes, for every screen, period and filter it offers, is made twice: with the
 * link (`Authorization: Share …`) and with a read:reports key limited to the site. The answers
 * must be byte-identical, and no hidden label may be in either. Everything else the link tries
 * is refused, so the link reader's knowledge is the key reader's, less what the key may read
 * beyond the page (the site record's timestamps and allowlist, deployments, verification).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { postBeacon } from "../collector/helpers";
import { client } from "../helpers/http";

const DOMAIN = "share-privacy.example";
const ALICE = "alice@example.com";
const TOKEN_PATH = "/reset/tok-share-8c1e";
const LABELS = [ALICE, TOKEN_PATH, "tok-share-8c1e"];

let f: ApiFixture;
let site: string;
let goal: string;
let token: string;

beforeAll(async () => {
  f = await apiFixture({ WREN_RATE_LIMIT: "100000/60" });
  site = (await f.makeSite(DOMAIN, "Small shop")).id;
  goal = (await f.makeGoal(site, { name: "Bought", kind: "event", match: "buy" })).id;
  const visit = async (session: string, events: object[]) => {
    const res = await postBeacon(f.stack.url, DOMAIN, { site, session: `${session}-abcdefghij`, events });
    expect(res.status).toBe(202);
  };
  for (let i = 0; i < 7; i++)
    await visit(`crowd-${i}`, [
      { type: "pageview", path: "/", utm: { source: "news", content: "spring-sale" } },
      { type: "pageview", path: "/pricing" },
      ...(i < 5 ? [{ type: "event", path: "/pricing", name: "buy" }] : []),
    ]);
  for (const who of ["alice-1", "alice-2"])
    await visit(who, [
      { type: "pageview", path: "/", utm: { source: "mail", content: ALICE } },
      { type: "event", path: "/", name: "buy" },
    ]);
  await visit("reset-1", [{ type: "pageview", path: TOKEN_PATH }]);
  // Yesterday published; and the same again today, for the live counter and the open hours.
  await f.rewindDays(1);
  for (let i = 0; i < 3; i++) await visit(`today-${i}`, [{ type: "pageview", path: "/" }]);
  await visit("today-alice", [{ type: "pageview", path: TOKEN_PATH, utm: { content: ALICE } }]);
  const share = await f.admin("POST", `/api/v1/sites/${site}/shares`, {});
  token = share.body.url.split("/share/")[1];
}, 180_000);
afterAll(() => f?.close());

/** Every read the share page makes: its screens (Overview, Pages, Sources, Goals) × periods × filters. */
function pageReads(): { method: "GET" | "POST"; path: string; body?: unknown }[] {
  const reads: { method: "GET" | "POST"; path: string; body?: unknown }[] = [
    { method: "GET", path: `/api/v1/sites/${site}/goals` },
    { method: "GET", path: `/api/v1/sites/${site}/props` },
    { method: "GET", path: `/api/v1/sites/${site}/arrivals` },
    { method: "GET", path: `/api/v1/live?site=${site}` },
    { method: "GET", path: `/api/v1/overview?site=${site}` },
  ];
  const filters = [
    "",
    `&filter=source:mail`,
    `&filter=utm_content:${encodeURIComponent(ALICE)}`,
    `&filter=goal:${goal}`,
    `&filter=page:${encodeURIComponent(TOKEN_PATH)}`,
  ];
  for (const period of ["day", "today", "7d", "30d"])
    for (const filter of filters) {
      const q = `site=${site}&period=${period}${filter}`;
      reads.push(
        { method: "GET", path: `/api/v1/timeseries?${q}` },
        { method: "GET", path: `/api/v1/timeseries?${q}&interval=hour` },
        { method: "GET", path: `/api/v1/pages?${q}` },
        { method: "GET", path: `/api/v1/conversions?${q}` },
        { method: "GET", path: `/api/v1/aggregate?${q}` },
        ...["source", "utm_content", "entry_page", "exit_page", "country", "browser", "device"].map((d) => ({
          method: "GET" as const,
          path: `/api/v1/breakdown?${q}&dimension=${d}`,
        })),
      );
    }
  reads.push(
    { method: "GET", path: `/api/v1/funnels?site=${site}&period=day&goals=${goal},${goal}` },
    {
      method: "POST",
      path: "/api/v1/query",
      body: { site_id: site, metrics: ["visitors", "pageviews"], date_range: "day", dimensions: ["visit:source"] },
    },
  );
  return reads;
}

describe("a share link against a read:reports key", () => {
  it("every read of the share page is byte-identical to the key's, and carries no hidden label", async () => {
    const key = await f.makeKey(["read:reports"], [site]);
    const viewer = await f.makeKey(["read:reports", "read:sites"], [site]);
    const asShare = client(f.stack.url);
    let compared = 0;
    let suppressed = 0;
    for (const read of pageReads()) {
      // Goal and prop names need read:sites: the viewer role's key reads them.
      const reader = read.path.includes("/goals") || read.path.includes("/props") ? viewer : key;
      const [byKey, byShare] = await Promise.all([
        reader.call(read.method, read.path, read.body),
        asShare(read.method, read.path, read.body, { authorization: `Share ${token}` }),
      ]);
      expect(byShare.status, `${read.path}: ${byShare.text}`).toBe(byKey.status);
      expect(byShare.text, read.path).toBe(byKey.text);
      for (const label of LABELS) expect(byShare.text.includes(label), `${label} in ${read.path}`).toBe(false);
      if (byKey.status === 200) compared++;
      suppressed += (byShare.text.match(/"suppressed"/g) ?? []).length;
    }
    // The comparison covered real answers, and small groups were there to hide.
    expect(compared).toBeGreaterThan(150);
    expect(suppressed).toBeGreaterThan(0);
  }, 180_000);

  it("reads nothing else: every key-only read the share page does not make refuses the link", async () => {
    const asShare = client(f.stack.url);
    for (const path of [
      `/api/v1/sites/${site}`,
      `/api/v1/sites/${site}/verification`,
      `/api/v1/sessions?site=${site}`,
      `/api/v1/deployments?site=${site}`,
      `/api/v1/alerts?site=${site}`,
      "/api/v1/sites",
      "/api/v1/keys/current",
    ]) {
      const res = await asShare("GET", path, undefined, { authorization: `Share ${token}` });
      expect(res.status, path).toBe(401);
      for (const label of LABELS) expect(res.text.includes(label)).toBe(false);
    }
  });
});
