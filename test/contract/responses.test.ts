/**
 * The running service answers as its OpenAPI document says. On the real stack (`wren start`,
 * its database a libSQL server this test can stop), every operation of the document — the
 * route table, the collector's paths, /healthz and the document itself — is driven to each
 * answer it documents: its successes, and 400, 401, 403 (with `required_scope`), 404, 409, 413,
 * 415, 422, 429 and 503 where it lists them. Each answer is held against the served document
 * (conformance.ts): status, media type, body schema, headers. Every path also refuses a method
 * it does not list with 405 and `Allow`. Last, no documented answer may be left unproduced.
 */
import { createHmac } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHranaServer, type HranaServer } from "../../server/hrana/index";
import { BROWSER_UA } from "../collector/helpers";
import { readFileSync } from "node:fs";
import { client, rawRequest, serveOnLoopback, type Call, type LoopbackServer } from "../helpers/http";
import { CLIENT_ID, CLIENT_SECRET, startTestProvider, type TestProvider } from "../helpers/oidc-provider";
import { browser, join as joinWith, signIn, tokenOf, type Browser } from "../helpers/passkey";
import { startStack, type Stack } from "../helpers/stack";
import { Contract, type Answer } from "./conformance";
import { OPERATION_IDS, operationIdsOf } from "./operation-ids";
import { FIXTURES_DIR, GOATCOUNTER_CSV, UMAMI_CSV } from "../fixtures/imports/generate";

const DB_TOKEN = "contract-token";
const EVERY_SCOPE_BUT_ADMIN = [
  "read:reports",
  "read:sites",
  "read:sessions",
  "write:sites",
  "write:goals",
  "write:events",
  "write:deployments",
  "write:alerts",
];
const DOMAIN = "contract.example";
const UNKNOWN = {
  site: "site_unknown0000000",
  goal: "goal_unknown0000000",
  key: "key_unknown00000000",
  dep: "dep_unknown00000000",
  alr: "alr_unknown00000000",
  dgs: "dgs_unknown00000000",
  acct: "acct_unknown0000000",
  inv: "inv_unknown00000000",
  ses: "ses_unknown00000000",
  imp: "imp_unknown00000000",
};

let database: HranaServer;
let stack: Stack;
let receiver: LoopbackServer;
/** The OpenID provider the sign-in routes redirect to (loopback; WREN_OIDC_ALLOW opens it). */
let oidc: TestProvider;
let contract: Contract;
let admin: Call;
/** Keys that lack a scope: every route's but the sessions list, and the sessions list's. */
let noScope: Call;
let noSessions: Call;
/** A key with every scope but no site: refused on each site-bound route. */
let noSites: Call;
const ids = {
  site: "",
  doomedSite: "",
  goal: "",
  goal2: "",
  doomedGoal: "",
  key: "",
  doomedKey: "",
  dep: "",
  doomedDep: "",
  alr: "",
  doomedAlr: "",
  doomedShare: "",
  doomedImport: "",
  dst: "",
  dgs: "",
  doomedDgs: "",
  person: "",
  doomedPerson: "",
  doomedInvitation: "",
};
/** The first admin account (the onboarding link): the only admin of all sites, signed in with a passkey. */
let owner: Browser;
let ownerId = "";
let token = "";
/** Tokens of a shared dashboard link, and of one with a password. */
let shareToken = "";
let lockedShareToken = "";
let hookSecret = "";

/** Sends a request and holds its answer against operation `op` ("POST /api/v1/sites"). */
async function expectAnswer(op: string, status: number, answer: Promise<Answer>): Promise<Answer> {
  const got = await answer;
  expect(got.status, `${op}: ${got.text.slice(0, 300)}`).toBe(status);
  contract.check(op, got);
  return got;
}

const TEXT_PLAIN = { "content-type": "text/plain" };
/** An export to import (GoatCounter's CSV, from the import fixtures), and how it is sent. */
const GOAT_CSV = readFileSync(join(FIXTURES_DIR, GOATCOUNTER_CSV), "utf8");
const TEXT_CSV = { "content-type": "text/csv" };
/** A page's beacon (POST /e) for the site. */
const beacon = (over: Record<string, unknown> = {}) =>
  JSON.stringify({ site: ids.site, session: "contract-session-0001", events: [{ type: "pageview", path: "/" }], ...over });
const big = (bytes: number) => JSON.stringify({ name: "x".repeat(bytes) });

beforeAll(async () => {
  database = await startHranaServer({
    file: join(mkdtempSync(join(tmpdir(), "wren-contract-")), "wren.db"),
    port: 0,
    authToken: DB_TOKEN,
  });
  receiver = await serveOnLoopback((_req, res) => res.end("ok"));
  oidc = await startTestProvider("http://127.0.0.1:9/api/v1/auth/oidc/callback");
  // Webhook deliveries (POST /api/v1/alerts/{id}/test) go to the receiver on loopback, nowhere else.
  stack = await startStack({
    env: {
      LIBSQL_URL: database.url,
      LIBSQL_AUTH_TOKEN: DB_TOKEN,
      WREN_RATE_LIMIT: "100000/60",
      WREN_WEBHOOK_ALLOW: "127.0.0.1",
      WREN_OIDC_ISSUER: oidc.issuer,
      WREN_OIDC_CLIENT_ID: CLIENT_ID,
      WREN_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      WREN_OIDC_ALLOW: "127.0.0.1",
    },
  });
  admin = client(stack.url, stack.adminKey);
  const served = await admin("GET", "/api/v1/openapi.json");
  expect(served.body.servers).toEqual([{ url: stack.url, description: expect.any(String) }]);
  expect(operationIdsOf(served.body)).toEqual(OPERATION_IDS);
  contract = await Contract.of(served.body);

  const key = async (scopes: string[], sites: string[] | null = null) => {
    const res = await admin("POST", "/api/v1/keys", { name: "contract", scopes, sites });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; key: string };
  };
  noScope = client(stack.url, (await key(["read:sessions"])).key);
  noSessions = client(stack.url, (await key(["read:reports"])).key);
  noSites = client(stack.url, (await key(EVERY_SCOPE_BUT_ADMIN, [])).key);
  ids.key = (await key(["read:reports"])).id;
  ids.doomedKey = (await key(["read:reports"])).id;

  const site = await admin("POST", "/api/v1/sites", { name: "Contract", domain: DOMAIN });
  [ids.site, token] = [site.body.id, site.body.s2s_token];
  ids.doomedSite = (await admin("POST", "/api/v1/sites", { name: "Doomed", domain: "doomed.contract.example" })).body.id;
  const goal = async (match: string) =>
    (await admin("POST", `/api/v1/sites/${ids.site}/goals`, { kind: "event", match })).body.id as string;
  [ids.goal, ids.goal2, ids.doomedGoal] = [await goal("signup"), await goal("purchase"), await goal("doomed")];
  const deployment = async (version: string) =>
    (await admin("POST", "/api/v1/deployments", { site: ids.site, version })).body.id as string;
  [ids.dep, ids.doomedDep] = [await deployment("v1"), await deployment("v2")];
  const rule = async () => (await admin("POST", "/api/v1/alerts", alertRule())).body.id as string;
  [ids.alr, ids.doomedAlr] = [await rule(), await rule()];
  ids.dst = (await admin("POST", "/api/v1/alerts", alertRule())).body.destinations[0].id as string;
  const digest = async () =>
    (await admin("POST", `/api/v1/sites/${ids.site}/digests`, { frequency: "weekly", destination_id: ids.dst })).body
      .id as string;
  [ids.dgs, ids.doomedDgs] = [await digest(), await digest()];
  hookSecret = (await admin("POST", `/api/v1/sites/${ids.site}/deployment-hook`)).body.secret;
  ids.doomedShare = (await admin("POST", `/api/v1/sites/${ids.site}/shares`, {})).body.id;
  const umami = readFileSync(join(FIXTURES_DIR, UMAMI_CSV), "utf8");
  ids.doomedImport = (await admin("POST", `/api/v1/sites/${ids.site}/imports?from=umami`, umami, TEXT_CSV)).body.import.id;
  const shareTokenOf = (res: Answer) => (JSON.parse(res.text) as { url: string }).url.split("/share/")[1]!;
  shareToken = shareTokenOf(await admin("POST", `/api/v1/sites/${ids.site}/shares`, {}));
  lockedShareToken = shareTokenOf(await admin("POST", `/api/v1/sites/${ids.site}/shares`, { password: "contract pass" }));
  const joinAsViewer = async () => {
    const invited = await admin("POST", "/api/v1/people", { site: ids.site, role: "viewer" });
    const joined = await joinWith(browser(stack.url), tokenOf(invited.body.link), "Contract viewer");
    expect(joined.status, joined.text).toBe(201);
    return joined.body.account.id as string;
  };
  [ids.person, ids.doomedPerson] = [await joinAsViewer(), await joinAsViewer()];
  ids.doomedInvitation = (await admin("POST", "/api/v1/people", { site: ids.site, role: "viewer" })).body.id;
  owner = browser(stack.url);
  const firstAdmin = await joinWith(
    owner,
    tokenOf(readFileSync(join(stack.dataDir, "first-admin-invitation.txt"), "utf8").trim()),
    "Owner",
  );
  expect(firstAdmin.status, firstAdmin.text).toBe(201);
  ownerId = firstAdmin.body.account.id;
  for (const id of Object.values(ids)) expect(id).toMatch(/^[a-z]+_/);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await oidc?.close();
  await database?.close().catch(() => undefined);
});

const alertRule = (over: Record<string, unknown> = {}) => ({
  site: ids.site,
  metric: "pageviews",
  condition: "above",
  threshold: 1000,
  destinations: [{ url: `${receiver.url}/hook` }],
  ...over,
});

/** A concrete path for each of the document's templates. */
function concrete(template: string): string {
  return template
    .replace("/keys/{id}", `/keys/${ids.key}`)
    .replace("/deployments/{id}", `/deployments/${ids.dep}`)
    .replace("/alerts/{id}", `/alerts/${ids.alr}`)
    .replace("{digestId}", ids.dgs)
    .replace(/\{(id|site)\}/, ids.site)
    .replace("{goal}", ids.goal)
    .replace("{name}", "plan")
    .replace("{import_id}", UNKNOWN.imp);
}

/** How each key route is called to succeed, by operation: [path, body?, headers?]. */
function keyRouteCalls(): Record<string, [string, unknown?, Record<string, string>?]> {
  return {
    "POST /api/v1/keys": ["/api/v1/keys", { scopes: ["read:reports"] }],
    "GET /api/v1/keys": ["/api/v1/keys"],
    "GET /api/v1/keys/current": ["/api/v1/keys/current"],
    "DELETE /api/v1/keys/{id}": [`/api/v1/keys/${ids.doomedKey}`],
    "GET /api/v1/keys/{id}/usage": [`/api/v1/keys/${ids.key}/usage`],
    "POST /api/v1/sites": ["/api/v1/sites", { name: "Again", domain: DOMAIN }],
    "GET /api/v1/sites": ["/api/v1/sites"],
    "GET /api/v1/sites/{id}": [`/api/v1/sites/${ids.site}`],
    "PATCH /api/v1/sites/{id}": [`/api/v1/sites/${ids.site}`, { name: "Contract (renamed)" }],
    "DELETE /api/v1/sites/{id}": [`/api/v1/sites/${ids.doomedSite}`],
    "POST /api/v1/sites/{id}/token": [`/api/v1/sites/${ids.site}/token`],
    "GET /api/v1/sites/{id}/verification": [`/api/v1/sites/${ids.site}/verification`],
    "GET /api/v1/sites/{id}/arrivals": [`/api/v1/sites/${ids.site}/arrivals`],
    "POST /api/v1/sites/{id}/goals": [`/api/v1/sites/${ids.site}/goals`, { kind: "page", match: "/thanks" }],
    "GET /api/v1/sites/{id}/goals": [`/api/v1/sites/${ids.site}/goals`],
    "PATCH /api/v1/sites/{id}/goals/{goal}": [`/api/v1/sites/${ids.site}/goals/${ids.goal}`, { purpose: "sales" }],
    "DELETE /api/v1/sites/{id}/goals/{goal}": [`/api/v1/sites/${ids.site}/goals/${ids.doomedGoal}`],
    "GET /api/v1/sites/{id}/props": [`/api/v1/sites/${ids.site}/props`],
    "PUT /api/v1/sites/{id}/props/{name}": [`/api/v1/sites/${ids.site}/props/plan`],
    "DELETE /api/v1/sites/{id}/props/{name}": [`/api/v1/sites/${ids.site}/props/plan`],
    "GET /api/v1/sessions": [`/api/v1/sessions?site=${ids.site}`],
    "POST /api/v1/events": ["/api/v1/events", { site: ids.site, goal_id: ids.goal, id: "order-1" }],
    "GET /api/v1/pages": [`/api/v1/pages?site=${ids.site}`],
    "GET /api/v1/vitals": [`/api/v1/vitals?site=${ids.site}`],
    "GET /api/v1/conversions": [`/api/v1/conversions?site=${ids.site}&period=24h`],
    "GET /api/v1/funnels": [`/api/v1/funnels?site=${ids.site}&period=7d&goals=${ids.goal},${ids.goal2}`],
    "GET /api/v1/timeseries": [`/api/v1/timeseries?site=${ids.site}&period=24h`],
    "GET /api/v1/breakdown": [`/api/v1/breakdown?site=${ids.site}&period=7d&dimension=source`],
    "POST /api/v1/query": ["/api/v1/query", { site_id: ids.site, metrics: ["visitors"], date_range: "7d" }],
    "GET /api/v1/aggregate": [`/api/v1/aggregate?site=${ids.site}&period=7d`],
    "GET /api/v1/overview": [`/api/v1/overview?site=${ids.site}`],
    "GET /api/v1/live": [`/api/v1/live?site=${ids.site}`],
    "POST /api/v1/deployments": ["/api/v1/deployments", { site: ids.site, version: "v3", external_id: "release-3" }],
    "GET /api/v1/deployments": [`/api/v1/deployments?site=${ids.site}`],
    "GET /api/v1/deployments/{id}": [`/api/v1/deployments/${ids.dep}`],
    "DELETE /api/v1/deployments/{id}": [`/api/v1/deployments/${ids.doomedDep}`],
    "POST /api/v1/sites/{id}/deployment-hook": [`/api/v1/sites/${ids.site}/deployment-hook`],
    "POST /api/v1/alerts": ["/api/v1/alerts", alertRule()],
    "GET /api/v1/alerts": [`/api/v1/alerts?site=${ids.site}`],
    "GET /api/v1/alerts/{id}": [`/api/v1/alerts/${ids.alr}`],
    "PATCH /api/v1/alerts/{id}": [`/api/v1/alerts/${ids.alr}`, { threshold: 500 }],
    "DELETE /api/v1/alerts/{id}": [`/api/v1/alerts/${ids.doomedAlr}`],
    "GET /api/v1/alerts/{id}/history": [`/api/v1/alerts/${ids.alr}/history`],
    "POST /api/v1/alerts/{id}/test": [`/api/v1/alerts/${ids.alr}/test`],
    "POST /api/v1/sites/{id}/shares": [`/api/v1/sites/${ids.site}/shares`, { expires_at: "2099-01-01T00:00:00Z", embed: true }],
    "GET /api/v1/sites/{id}/shares": [`/api/v1/sites/${ids.site}/shares`],
    "DELETE /api/v1/sites/{id}/shares/{share}": [`/api/v1/sites/${ids.site}/shares/${ids.doomedShare}`],
    "POST /api/v1/sites/{id}/imports": [`/api/v1/sites/${ids.site}/imports?from=goatcounter&name=goat.csv`, GOAT_CSV, TEXT_CSV],
    "GET /api/v1/sites/{id}/imports": [`/api/v1/sites/${ids.site}/imports`],
    "DELETE /api/v1/sites/{id}/imports/{import_id}": [`/api/v1/sites/${ids.site}/imports/${ids.doomedImport}`],
    "GET /api/v1/sites/{id}/digests": [`/api/v1/sites/${ids.site}/digests`],
    "POST /api/v1/sites/{id}/digests": [`/api/v1/sites/${ids.site}/digests`, { frequency: "monthly", destination_id: ids.dst }],
    "DELETE /api/v1/sites/{id}/digests/{digestId}": [`/api/v1/sites/${ids.site}/digests/${ids.doomedDgs}`],
    "POST /api/v1/sites/{id}/digests/{digestId}/preview": [`/api/v1/sites/${ids.site}/digests/${ids.dgs}/preview`],
    "GET /api/v1/people": ["/api/v1/people"],
    "POST /api/v1/people": ["/api/v1/people", { site: ids.site, role: "viewer" }],
    "PATCH /api/v1/people/{id}": [`/api/v1/people/${ids.person}`, { site: ids.site, role: "editor" }],
    "DELETE /api/v1/people/{id}": [`/api/v1/people/${ids.doomedPerson}`],
    "GET /api/v1/invitations": ["/api/v1/invitations"],
    "DELETE /api/v1/invitations/{id}": [`/api/v1/invitations/${ids.doomedInvitation}`],
    "GET /api/v1/audit": ["/api/v1/audit"],
  };
}

const methodOf = (op: string) => op.split(" ")[0]!;

describe("the key routes", () => {
  it("succeed as documented, the report formats and the second answers (200 on a re-post) included", async () => {
    const calls = keyRouteCalls();
    const success: Record<string, number> = { POST: 201, PUT: 201, DELETE: 204 };
    const special: Record<string, number> = {
      "POST /api/v1/sites": 200,
      "POST /api/v1/events": 202,
      "POST /api/v1/sites/{id}/token": 200,
      "POST /api/v1/sites/{id}/deployment-hook": 200,
      "POST /api/v1/alerts/{id}/test": 202,
      "POST /api/v1/query": 200,
      "POST /api/v1/sites/{id}/digests/{digestId}/preview": 200,
    };
    for (const [op, [path, body, headers]] of Object.entries(calls)) {
      const answer = await expectAnswer(
        op,
        special[op] ?? success[methodOf(op)] ?? 200,
        admin(methodOf(op), path, body, headers),
      );
      // These rotate the site's token and hook secret: the later calls need the new ones.
      if (op === "POST /api/v1/sites/{id}/token") token = JSON.parse(answer.text).s2s_token;
      if (op === "POST /api/v1/sites/{id}/deployment-hook") hookSecret = JSON.parse(answer.text).secret;
    }
    // Made before: the same again answers 200 with it.
    const prop = `/api/v1/sites/${ids.site}/props/method`;
    await expectAnswer("PUT /api/v1/sites/{id}/props/{name}", 201, admin("PUT", prop));
    await expectAnswer("PUT /api/v1/sites/{id}/props/{name}", 200, admin("PUT", prop));
    // A reserved name (the tracker's opt-ins send it, always kept) is no name to allow.
    await expectAnswer("PUT /api/v1/sites/{id}/props/{name}", 422, admin("PUT", `/api/v1/sites/${ids.site}/props/url`));
    await expectAnswer(
      "POST /api/v1/sites/{id}/goals",
      200,
      admin("POST", `/api/v1/sites/${ids.site}/goals`, { kind: "page", match: "/thanks" }),
    );
    await expectAnswer(
      "POST /api/v1/deployments",
      200,
      admin("POST", "/api/v1/deployments", { site: ids.site, version: "v3", external_id: "release-3" }),
    );
    await expectAnswer(
      "POST /api/v1/sites",
      201,
      admin("POST", "/api/v1/sites", { name: "New", domain: "new.contract.example" }),
    );
    for (const report of ["pages", "vitals", "conversions", "funnels", "timeseries", "breakdown", "aggregate"]) {
      const [path] = calls[`GET /api/v1/${report}`]!;
      for (const accept of ["text/csv", "application/x-ndjson"]) {
        const answer = await expectAnswer(`GET /api/v1/${report}`, 200, admin("GET", path, undefined, { accept }));
        expect(answer.headers.get("content-type")).toMatch(accept === "text/csv" ? /^text\/csv/ : /^application\/x-ndjson/);
      }
    }
  });

  it("refuse a request without a key (401, WWW-Authenticate) or a key that lacks the scope (403 naming it)", async () => {
    for (const [op, [path, body, headers]] of Object.entries(keyRouteCalls())) {
      await expectAnswer(op, 401, client(stack.url)(methodOf(op), path, body, headers));
      if (op === "GET /api/v1/keys/current") continue;
      const lacking = op === "GET /api/v1/sessions" ? noSessions : noScope;
      const refused = await expectAnswer(op, 403, lacking(methodOf(op), path, body, headers));
      expect(JSON.parse(refused.text), op).toMatchObject({ field: "authorization", required_scope: expect.any(String) });
    }
    await expectAnswer("GET /api/v1/sites/{id}", 403, noSites("GET", `/api/v1/sites/${ids.site}`));
    await expectAnswer("GET /api/v1/pages", 403, noSites("GET", `/api/v1/pages?site=${ids.site}`));
  });

  it("refuse what is not there (404) and a malformed path or query (400)", async () => {
    const notFound: [string, string, unknown?][] = [
      ["DELETE /api/v1/keys/{id}", `/api/v1/keys/${UNKNOWN.key}`],
      ["GET /api/v1/keys/{id}/usage", `/api/v1/keys/${UNKNOWN.key}/usage`],
      ["GET /api/v1/sites/{id}", `/api/v1/sites/${UNKNOWN.site}`],
      ["PATCH /api/v1/sites/{id}", `/api/v1/sites/${UNKNOWN.site}`, { name: "x" }],
      ["DELETE /api/v1/sites/{id}", `/api/v1/sites/${UNKNOWN.site}`],
      ["POST /api/v1/sites/{id}/token", `/api/v1/sites/${UNKNOWN.site}/token`],
      ["GET /api/v1/sites/{id}/verification", `/api/v1/sites/${UNKNOWN.site}/verification`],
      ["GET /api/v1/sites/{id}/arrivals", `/api/v1/sites/${UNKNOWN.site}/arrivals`],
      ["POST /api/v1/sites/{id}/goals", `/api/v1/sites/${UNKNOWN.site}/goals`, { kind: "page", match: "/" }],
      ["GET /api/v1/sites/{id}/goals", `/api/v1/sites/${UNKNOWN.site}/goals`],
      ["PATCH /api/v1/sites/{id}/goals/{goal}", `/api/v1/sites/${ids.site}/goals/${UNKNOWN.goal}`, { name: "x" }],
      ["DELETE /api/v1/sites/{id}/goals/{goal}", `/api/v1/sites/${ids.site}/goals/${UNKNOWN.goal}`],
      ["GET /api/v1/sites/{id}/props", `/api/v1/sites/${UNKNOWN.site}/props`],
      ["PUT /api/v1/sites/{id}/props/{name}", `/api/v1/sites/${UNKNOWN.site}/props/plan`],
      ["DELETE /api/v1/sites/{id}/props/{name}", `/api/v1/sites/${ids.site}/props/never-allowed`],
      ["GET /api/v1/sessions", `/api/v1/sessions?site=${UNKNOWN.site}`],
      ["POST /api/v1/events", "/api/v1/events", { site: UNKNOWN.site, goal_id: ids.goal }],
      ...["pages", "vitals", "conversions", "timeseries", "overview", "aggregate"].map((r): [string, string] => [
        `GET /api/v1/${r}`,
        `/api/v1/${r}?site=${UNKNOWN.site}`,
      ]),
      ["GET /api/v1/breakdown", `/api/v1/breakdown?site=${UNKNOWN.site}&dimension=country`],
      ["POST /api/v1/query", "/api/v1/query", { site_id: UNKNOWN.site, metrics: ["visitors"], date_range: "7d" }],
      ["GET /api/v1/overview", `/api/v1/overview?site=${ids.site}&deployment=${UNKNOWN.dep}`],
      ["GET /api/v1/live", `/api/v1/live?site=${UNKNOWN.site}`],
      ["POST /api/v1/deployments", "/api/v1/deployments", { site: UNKNOWN.site, version: "v1" }],
      ["GET /api/v1/deployments", `/api/v1/deployments?site=${UNKNOWN.site}`],
      ["GET /api/v1/deployments/{id}", `/api/v1/deployments/${UNKNOWN.dep}`],
      ["DELETE /api/v1/deployments/{id}", `/api/v1/deployments/${UNKNOWN.dep}`],
      ["POST /api/v1/sites/{id}/deployment-hook", `/api/v1/sites/${UNKNOWN.site}/deployment-hook`],
      ["POST /api/v1/alerts", "/api/v1/alerts", alertRule({ site: UNKNOWN.site })],
      ["GET /api/v1/alerts", `/api/v1/alerts?site=${UNKNOWN.site}`],
      ...["GET", "PATCH", "DELETE"].map((m): [string, string, unknown?] => [
        `${m} /api/v1/alerts/{id}`,
        `/api/v1/alerts/${UNKNOWN.alr}`,
        m === "PATCH" ? { threshold: 10 } : undefined,
      ]),
      ["GET /api/v1/alerts/{id}/history", `/api/v1/alerts/${UNKNOWN.alr}/history`],
      ["POST /api/v1/alerts/{id}/test", `/api/v1/alerts/${UNKNOWN.alr}/test`],
      ["POST /api/v1/sites/{id}/shares", `/api/v1/sites/${UNKNOWN.site}/shares`, {}],
      ["GET /api/v1/sites/{id}/shares", `/api/v1/sites/${UNKNOWN.site}/shares`],
      ["DELETE /api/v1/sites/{id}/shares/{share}", `/api/v1/sites/${ids.site}/shares/shr_unknown00000000`],
      ["GET /api/v1/sites/{id}/imports", `/api/v1/sites/${UNKNOWN.site}/imports`],
      ["DELETE /api/v1/sites/{id}/imports/{import_id}", `/api/v1/sites/${ids.site}/imports/${UNKNOWN.imp}`],
      ["GET /api/v1/sites/{id}/digests", `/api/v1/sites/${UNKNOWN.site}/digests`],
      [
        "POST /api/v1/sites/{id}/digests",
        `/api/v1/sites/${UNKNOWN.site}/digests`,
        { frequency: "weekly", destination_id: ids.dst },
      ],
      ["DELETE /api/v1/sites/{id}/digests/{digestId}", `/api/v1/sites/${ids.site}/digests/${UNKNOWN.dgs}`],
      ["POST /api/v1/sites/{id}/digests/{digestId}/preview", `/api/v1/sites/${ids.site}/digests/${UNKNOWN.dgs}/preview`],
      ["POST /api/v1/people", "/api/v1/people", { site: UNKNOWN.site, role: "viewer" }],
      ["PATCH /api/v1/people/{id}", `/api/v1/people/${UNKNOWN.acct}`, { site: ids.site, role: "viewer" }],
      ["DELETE /api/v1/people/{id}", `/api/v1/people/${UNKNOWN.acct}`],
      ["DELETE /api/v1/invitations/{id}", `/api/v1/invitations/${UNKNOWN.inv}`],
    ];
    for (const [op, path, body] of notFound) await expectAnswer(op, 404, admin(methodOf(op), path, body));
    await expectAnswer(
      "POST /api/v1/sites/{id}/imports",
      404,
      admin("POST", `/api/v1/sites/${UNKNOWN.site}/imports?from=goatcounter`, GOAT_CSV, TEXT_CSV),
    );

    const malformed: [string, string][] = [
      ["DELETE /api/v1/keys/{id}", "/api/v1/keys/nope"],
      ["GET /api/v1/keys/{id}/usage", `/api/v1/keys/${ids.key}/usage?days=0`],
      ["GET /api/v1/sites/{id}", "/api/v1/sites/nope"],
      ["GET /api/v1/sites/{id}/arrivals", "/api/v1/sites/nope/arrivals"],
      ["PUT /api/v1/sites/{id}/props/{name}", `/api/v1/sites/${ids.site}/props/not%20a%20name`],
      ["GET /api/v1/sessions", `/api/v1/sessions?site=${ids.site}&cursor=nope`],
      ["GET /api/v1/pages", `/api/v1/pages?site=${ids.site}&limit=0`],
      ["GET /api/v1/aggregate", `/api/v1/aggregate?site=${ids.site}&period=24h`],
      ["GET /api/v1/funnels", `/api/v1/funnels?site=${ids.site}&goals=${ids.goal}`],
      ["GET /api/v1/overview", `/api/v1/overview?site=${ids.site}&deployment=nope`],
      ["GET /api/v1/live", "/api/v1/live?site=nope"],
      ["GET /api/v1/deployments", `/api/v1/deployments?site=${ids.site}&cursor=nope`],
      ["GET /api/v1/alerts", "/api/v1/alerts?site=nope"],
      ["GET /api/v1/sites/{id}/digests", "/api/v1/sites/nope/digests"],
      ["DELETE /api/v1/sites/{id}/digests/{digestId}", `/api/v1/sites/${ids.site}/digests/nope`],
      ["POST /api/v1/sites/{id}/digests/{digestId}/preview", `/api/v1/sites/${ids.site}/digests/nope/preview`],
    ];
    for (const [op, path] of malformed) await expectAnswer(op, 400, admin(methodOf(op), path));
  });

  it("refuse a body that is not JSON (400), too large (413), not JSON by type (415) or invalid (422)", async () => {
    const invalid: Record<string, [string, unknown]> = {
      "POST /api/v1/keys": ["/api/v1/keys", { scopes: ["nope"] }],
      "POST /api/v1/sites": ["/api/v1/sites", { name: "x", domain: "https://bad.example/path" }],
      "PATCH /api/v1/sites/{id}": [`/api/v1/sites/${ids.site}`, { timezone: "Mars/Olympus" }],
      "POST /api/v1/sites/{id}/goals": [`/api/v1/sites/${ids.site}/goals`, { kind: "nope", match: "/" }],
      "PATCH /api/v1/sites/{id}/goals/{goal}": [`/api/v1/sites/${ids.site}/goals/${ids.goal}`, { match: "/other" }],
      "POST /api/v1/events": ["/api/v1/events", { site: ids.site, goal_id: UNKNOWN.goal }],
      "POST /api/v1/deployments": ["/api/v1/deployments", { site: ids.site, version: "has spaces" }],
      "POST /api/v1/alerts": ["/api/v1/alerts", alertRule({ threshold: 2 })],
      "PATCH /api/v1/alerts/{id}": [`/api/v1/alerts/${ids.alr}`, { window_hours: 0 }],
      "POST /api/v1/query": ["/api/v1/query", { site_id: ids.site, metrics: ["revenue"], date_range: "7d" }],
      "POST /api/v1/sites/{id}/shares": [`/api/v1/sites/${ids.site}/shares`, { password: "short" }],
      "POST /api/v1/sites/{id}/digests": [
        `/api/v1/sites/${ids.site}/digests`,
        { frequency: "weekly", destination_id: "dst_nope" },
      ],
      "POST /api/v1/people": ["/api/v1/people", { site: ids.site, role: "owner" }],
      "PATCH /api/v1/people/{id}": [`/api/v1/people/${ids.person}`, { site: ids.site, role: "owner" }],
    };
    for (const [op, [path, body]] of Object.entries(invalid)) {
      const method = methodOf(op);
      await expectAnswer(op, 422, admin(method, path, body));
      await expectAnswer(op, 400, admin(method, path, "{not json"));
      await expectAnswer(op, 415, admin(method, path, JSON.stringify(body), TEXT_PLAIN));
      await expectAnswer(op, 413, admin(method, path, big(op === "POST /api/v1/events" ? 300_000 : 70_000)));
    }
    // Reports refuse a time zone other than the site's with a 422 naming `tz`.
    for (const report of ["pages", "vitals", "conversions", "funnels", "timeseries", "breakdown", "aggregate"]) {
      const path = keyRouteCalls()[`GET /api/v1/${report}`]![0];
      await expectAnswer(`GET /api/v1/${report}`, 422, admin("GET", `${path}&tz=Asia/Tokyo`));
    }
  });

  it("answer 409 for a domain another key registered (to an admin: which site and key) and a zone already published", async () => {
    const ci = await admin("POST", "/api/v1/keys", { name: "ci", scopes: ["write:sites"] });
    const registered = await client(stack.url, ci.body.key)("POST", "/api/v1/sites", {
      name: "Preview",
      domain: "pr-1.contract.example",
    });
    expect(registered.status).toBe(201);
    const conflict = await expectAnswer(
      "POST /api/v1/sites",
      409,
      admin("POST", "/api/v1/sites", { name: "Mine", domain: "pr-1.contract.example" }),
    );
    expect(JSON.parse(conflict.text)).toMatchObject({
      field: "domain",
      site: registered.body.id,
      registered_by: { id: ci.body.id, name: "ci", revoked: false },
    });
    await expectAnswer(
      "POST /api/v1/sites",
      409,
      noSites("POST", "/api/v1/sites", { name: "Mine", domain: "pr-1.contract.example" }),
    );

    // An hour of the site with data, published long ago: its zone can no longer change.
    const db = createClient({ url: database.url, authToken: DB_TOKEN });
    const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 48 * 3_600_000;
    await db.execute({
      sql: "INSERT INTO rollup_site_hour (site_id, hour, day, visitors, pageviews) VALUES (?, ?, ?, 1, 1)",
      args: [ids.site, hour, new Date(hour).toISOString().slice(0, 10)],
    });
    db.close();
    // Email addresses while no SMTP server is configured: mail is not configured.
    const noMail = await expectAnswer(
      "POST /api/v1/sites/{id}/digests",
      409,
      admin("POST", `/api/v1/sites/${ids.site}/digests`, { frequency: "weekly", email_to: ["ops@example.com"] }),
    );
    expect(JSON.parse(noMail.text)).toMatchObject({ field: "email_to" });
    await expectAnswer(
      "PATCH /api/v1/sites/{id}",
      409,
      admin("PATCH", `/api/v1/sites/${ids.site}`, { timezone: "Europe/Berlin" }),
    );
  });
});

describe("the import routes", () => {
  const op = "POST /api/v1/sites/{id}/imports";
  const upload = (query: string, body: unknown, headers: Record<string, string> = TEXT_CSV) =>
    admin("POST", `/api/v1/sites/${ids.site}/imports?${query}`, body, headers);

  it("answer the same file again with 200, and refuse an unknown tool, a malformed file, another media type, too large a body", async () => {
    const again = await expectAnswer(op, 200, upload("from=goatcounter", GOAT_CSV));
    expect(JSON.parse(again.text).unchanged).toBe(true);
    expect(JSON.parse((await expectAnswer(op, 422, upload("from=matomo", GOAT_CSV))).text).field).toBe("from");
    const malformed = await expectAnswer(op, 422, upload("from=goatcounter&name=gc.csv", "Path,Title\n/a,A\n"));
    expect(JSON.parse(malformed.text)).toMatchObject({
      field: "body",
      detail: 'Line 1 of gc.csv: not a GoatCounter export (its header starts with "2,Path")',
    });
    await expectAnswer(op, 415, upload("from=goatcounter", GOAT_CSV, { "content-type": "application/json" }));
    // Declared past WREN_IMPORT_MAX_MB (25 MB): refused on its Content-Length, before a byte is read.
    const tooLarge = await rawRequest(stack.url, {
      method: "POST",
      path: `/api/v1/sites/${ids.site}/imports?from=goatcounter`,
      headers: {
        authorization: `Bearer ${stack.adminKey}`,
        "content-type": "text/csv",
        "content-length": String(101 * 1024 * 1024),
      },
      body: "",
    });
    const headers = new Headers(Object.entries(tooLarge.headers).map(([name, value]) => [name, String(value)]));
    await expectAnswer(op, 413, Promise.resolve({ status: tooLarge.status, headers, text: tooLarge.body }));
  });
});

describe("the share routes", () => {
  const share =
    (header = shareToken) =>
    (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      client(stack.url)(method, path, body, { authorization: `Share ${header}`, ...headers });

  it("answer a shared link's reader as documented, and refuse anyone else", async () => {
    await expectAnswer("GET /api/v1/share", 200, share()("GET", "/api/v1/share"));
    await expectAnswer("GET /api/v1/share", 401, client(stack.url)("GET", "/api/v1/share"));
    await expectAnswer("GET /api/v1/share", 401, admin("GET", "/api/v1/share"));
    await expectAnswer("GET /api/v1/share", 401, share(lockedShareToken)("GET", "/api/v1/share"));
    const unlock = `/share/${lockedShareToken}/unlock`;
    const op = "POST /share/{token}/unlock";
    await expectAnswer(op, 204, client(stack.url)("POST", unlock, { password: "contract pass" }));
    await expectAnswer(op, 401, client(stack.url)("POST", `/share/${"x".repeat(43)}/unlock`, { password: "contract pass" }));
    await expectAnswer(op, 422, client(stack.url)("POST", unlock, { password: 1 }));
    await expectAnswer(op, 400, client(stack.url)("POST", unlock, "{not json"));
    await expectAnswer(op, 415, client(stack.url)("POST", unlock, JSON.stringify({ password: "x" }), TEXT_PLAIN));
    await expectAnswer(op, 413, client(stack.url)("POST", unlock, big(70_000)));
    // Wrong guesses: 401 each, then 429 with Retry-After.
    let status = 0;
    for (let i = 0; i < 20 && status !== 429; i++) {
      const answer = await client(stack.url)("POST", unlock, { password: `wrong guess ${i}` });
      status = answer.status;
      await expectAnswer(op, status === 429 ? 429 : 401, Promise.resolve(answer));
    }
    expect(status).toBe(429);
    // The link's own bucket (WREN_RATE_LIMIT, per link) runs out like a key's: on a stack whose limit is small.
    const small = await startStack({ env: { WREN_RATE_LIMIT: "3/3600" } });
    try {
      const smallAdmin = client(small.url, small.adminKey);
      const site = (await smallAdmin("POST", "/api/v1/sites", { name: "Small", domain: "small.contract.example" })).body.id;
      const link = (await smallAdmin("POST", `/api/v1/sites/${site}/shares`, {})).body.url.split("/share/")[1];
      status = 0;
      for (let i = 0; i < 10 && status !== 429; i++) {
        const answer = await client(small.url)("GET", "/api/v1/share", undefined, { authorization: `Share ${link}` });
        status = answer.status;
        await expectAnswer("GET /api/v1/share", status === 429 ? 429 : 200, Promise.resolve(answer));
      }
    } finally {
      await small.stop();
    }
    expect(status).toBe(429);
  }, 120_000);
});

const signStandard = (id: string, body: string) => {
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = createHmac("sha256", Buffer.from(hookSecret.slice("whsec_".length), "base64"))
    .update(`${id}.${ts}.${body}`)
    .digest("base64");
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": ts,
    "webhook-signature": `v1,${signature}`,
  };
};

describe("the people routes", () => {
  const fromDashboard = { origin: "" };
  beforeAll(() => {
    fromDashboard.origin = stack.url;
  });
  const anon = () => client(stack.url);
  const body413 = (op: string) => big(op.includes("/register") || op.endsWith("/sign-in") ? 70_000 : 70_000);

  it("the last admin of all sites can be neither demoted nor removed (409)", async () => {
    await expectAnswer(
      "PATCH /api/v1/people/{id}",
      409,
      admin("PATCH", `/api/v1/people/${ownerId}`, { site: "*", role: "viewer" }),
    );
    await expectAnswer("DELETE /api/v1/people/{id}", 409, admin("DELETE", `/api/v1/people/${ownerId}`));
  });

  it("sign-in and registration take no credentials, only the dashboard's Origin", async () => {
    await expectAnswer("GET /api/v1/auth/methods", 200, anon()("GET", "/api/v1/auth/methods"));
    const invited = await admin("POST", "/api/v1/people", { site: ids.site, role: "viewer" });
    const token = tokenOf(invited.body.link);
    const newcomer = browser(stack.url);
    const options = await expectAnswer(
      "POST /api/v1/auth/passkey/register/options",
      200,
      anon()("POST", "/api/v1/auth/passkey/register/options", { invitation: token, name: "New" }, fromDashboard),
    );
    const response = newcomer.authenticator.register(JSON.parse(options.text).options);
    const registration = { challenge_id: JSON.parse(options.text).challenge_id, invitation: token, name: "New", response };
    await expectAnswer(
      "POST /api/v1/auth/passkey/register",
      201,
      anon()("POST", "/api/v1/auth/passkey/register", registration, fromDashboard),
    );
    // The same again: the invitation and the challenge are spent.
    await expectAnswer(
      "POST /api/v1/auth/passkey/register",
      401,
      anon()("POST", "/api/v1/auth/passkey/register", registration, fromDashboard),
    );
    await expectAnswer(
      "POST /api/v1/auth/passkey/register/options",
      401,
      anon()("POST", "/api/v1/auth/passkey/register/options", { invitation: token }, fromDashboard),
    );
    const signInOptions = await expectAnswer(
      "POST /api/v1/auth/passkey/sign-in/options",
      200,
      anon()("POST", "/api/v1/auth/passkey/sign-in/options", undefined, fromDashboard),
    );
    const assertion = {
      challenge_id: JSON.parse(signInOptions.text).challenge_id,
      response: owner.authenticator.assert(JSON.parse(signInOptions.text).options),
    };
    await expectAnswer(
      "POST /api/v1/auth/passkey/sign-in",
      200,
      anon()("POST", "/api/v1/auth/passkey/sign-in", assertion, fromDashboard),
    );
    await expectAnswer(
      "POST /api/v1/auth/passkey/sign-in",
      401,
      anon()("POST", "/api/v1/auth/passkey/sign-in", assertion, fromDashboard),
    );
    const invalid: Record<string, unknown> = {
      "POST /api/v1/auth/passkey/register/options": { invitation: 5 },
      "POST /api/v1/auth/passkey/register": { challenge_id: "x" },
      "POST /api/v1/auth/passkey/sign-in": { challenge_id: "x", response: {} },
    };
    for (const [op, body] of Object.entries(invalid)) {
      const path = op.split(" ")[1]!;
      await expectAnswer(op, 403, anon()("POST", path, body, { origin: "http://evil.example" }));
      await expectAnswer(op, 422, anon()("POST", path, body, fromDashboard));
      await expectAnswer(op, 400, anon()("POST", path, "{not json", fromDashboard));
      await expectAnswer(op, 415, anon()("POST", path, JSON.stringify(body), { ...fromDashboard, ...TEXT_PLAIN }));
      await expectAnswer(op, 413, anon()("POST", path, body413(op), fromDashboard));
    }
    await expectAnswer("POST /api/v1/auth/passkey/sign-in/options", 403, anon()("POST", "/api/v1/auth/passkey/sign-in/options"));
  });

  it("a person's own routes take the session cookie, and writes need the CSRF header", async () => {
    await expectAnswer("GET /api/v1/session", 200, owner.call("GET", "/api/v1/session"));
    await expectAnswer("GET /api/v1/session", 401, anon()("GET", "/api/v1/session"));
    await expectAnswer("GET /api/v1/account/sessions", 200, owner.call("GET", "/api/v1/account/sessions"));
    await expectAnswer(
      "GET /api/v1/account/sessions",
      401,
      anon()("GET", "/api/v1/account/sessions", undefined, { authorization: `Bearer ${stack.adminKey}` }),
    );
    const other = browser(stack.url);
    other.authenticator.credentials.push(...owner.authenticator.credentials);
    expect((await signIn(other)).answer.status).toBe(200);
    const otherId = (await other.call("GET", "/api/v1/session")).body.session.id;
    const path = `/api/v1/account/sessions/${otherId}`;
    await expectAnswer("DELETE /api/v1/account/sessions/{id}", 403, owner.call("DELETE", path, undefined, { "x-wren-csrf": "" }));
    await expectAnswer("DELETE /api/v1/account/sessions/{id}", 401, anon()("DELETE", path));
    await expectAnswer("DELETE /api/v1/account/sessions/{id}", 204, owner.call("DELETE", path));
    await expectAnswer(
      "DELETE /api/v1/account/sessions/{id}",
      404,
      owner.call("DELETE", `/api/v1/account/sessions/${UNKNOWN.ses}`),
    );
    const leaving = browser(stack.url);
    leaving.authenticator.credentials.push(...owner.authenticator.credentials);
    expect((await signIn(leaving)).answer.status).toBe(200);
    await expectAnswer(
      "DELETE /api/v1/session",
      403,
      leaving.call("DELETE", "/api/v1/session", undefined, { origin: "http://evil.example" }),
    );
    await expectAnswer("DELETE /api/v1/session", 401, anon()("DELETE", "/api/v1/session"));
    await expectAnswer("DELETE /api/v1/session", 204, leaving.call("DELETE", "/api/v1/session"));
  });

  it("a person whose limit is used up is refused with 429 on their own routes", async () => {
    const limited = await startStack({ env: { WREN_RATE_LIMIT: "1/86400" } });
    try {
      const person = browser(limited.url);
      const link = readFileSync(join(limited.dataDir, "first-admin-invitation.txt"), "utf8").trim();
      expect((await joinWith(person, tokenOf(link), "Limited")).status).toBe(201);
      const sessionId = (await person.call("GET", "/api/v1/session")).body?.session?.id ?? UNKNOWN.ses;
      const own: [string, string][] = [
        ["GET /api/v1/session", "/api/v1/session"],
        ["GET /api/v1/account/sessions", "/api/v1/account/sessions"],
        ["DELETE /api/v1/account/sessions/{id}", `/api/v1/account/sessions/${sessionId}`],
        ["DELETE /api/v1/session", "/api/v1/session"],
      ];
      for (const [op, path] of own) await expectAnswer(op, 429, person.call(methodOf(op), path));
    } finally {
      await limited.stop();
    }
  });
});

describe("the deployment webhook", () => {
  it("records, replays, ignores and refuses deliveries as documented", async () => {
    const op = "POST /hooks/deployments/{site}";
    const hook = client(stack.url);
    const path = `/hooks/deployments/${ids.site}`;
    const body = JSON.stringify({ version: "4f00d1e", environment: "production" });
    await expectAnswer(op, 201, hook("POST", path, body, signStandard("deploy-1", body)));
    await expectAnswer(op, 200, hook("POST", path, body, signStandard("deploy-1", body)));
    const ping = JSON.stringify({ zen: "Keep it logically awesome." });
    const gitHub = {
      "content-type": "application/json",
      "x-github-event": "ping",
      "x-hub-signature-256": `sha256=${createHmac("sha256", hookSecret).update(ping).digest("hex")}`,
    };
    await expectAnswer(op, 202, hook("POST", path, ping, gitHub));
    await expectAnswer(op, 400, hook("POST", "/hooks/deployments/nope", body, signStandard("deploy-2", body)));
    await expectAnswer(op, 401, hook("POST", path, body, { "content-type": "application/json" }));
    await expectAnswer(op, 413, hook("POST", path, big(1_100_000), signStandard("deploy-3", "x")));
    await expectAnswer(
      op,
      415,
      hook("POST", path, body, { ...signStandard("deploy-4", body), "content-type": "application/x-www-form-urlencoded" }),
    );
    const invalid = JSON.stringify({ version: "has spaces" });
    await expectAnswer(op, 422, hook("POST", path, invalid, signStandard("deploy-5", invalid)));
  });
});

/** A browser's navigation: the redirect is the answer, not followed. */
async function navigate(path: string, cookie?: string): Promise<Answer> {
  const response = await fetch(`${stack.url}${path}`, { redirect: "manual", headers: cookie ? { cookie } : {} });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe("the OIDC sign-in routes", () => {
  it("redirect (302) to the provider and back to the sign-in, and refuse a malformed query (400)", async () => {
    const start = await expectAnswer("GET /api/v1/auth/oidc/start", 302, navigate("/api/v1/auth/oidc/start"));
    expect(start.headers.get("location")).toMatch(new RegExp(`^${oidc.issuer}/auth\\?`));
    await expectAnswer("GET /api/v1/auth/oidc/start", 400, navigate("/api/v1/auth/oidc/start?invitation=nope"));
    const back = await expectAnswer("GET /api/v1/auth/oidc/callback", 302, navigate("/api/v1/auth/oidc/callback?state=x&code=y"));
    expect(back.headers.get("location")).toBe("/dashboard/?sign_in_error=state_mismatch");
    await expectAnswer("GET /api/v1/auth/oidc/callback", 400, navigate("/api/v1/auth/oidc/callback?state=x&state=y"));
  });
});

describe("the collector's paths", () => {
  const browser = { "user-agent": BROWSER_UA, origin: `https://${DOMAIN}` };

  it("serve the tracker (200, 304 on its ETag), for GET and HEAD", async () => {
    const anyone = client(stack.url);
    for (const method of ["GET", "HEAD"]) {
      const op = `${method} /t.js`;
      const script = await expectAnswer(op, 200, anyone(method, "/t.js"));
      await expectAnswer(op, 200, anyone(method, "/t.js?vitals"));
      await expectAnswer(op, 200, anyone(method, "/t.js?track"));
      await expectAnswer(op, 304, anyone(method, "/t.js", undefined, { "if-none-match": script.headers.get("etag")! }));
    }
  });

  it("take beacons from the site's pages (202) and refuse the rest (400, 403, 413, 415, 422); preflight for anyone (204)", async () => {
    const e = client(stack.url);
    const op = "POST /e";
    const accepted = await expectAnswer(op, 202, e("POST", "/e", beacon(), { ...browser, "content-type": "text/plain" }));
    expect(accepted.headers.get("access-control-allow-origin")).toBe(`https://${DOMAIN}`);
    await expectAnswer(op, 202, e("POST", "/e", beacon(), { ...browser, "content-type": "application/json" }));
    await expectAnswer(op, 400, e("POST", "/e", "{nope", { ...browser, "content-type": "text/plain" }));
    await expectAnswer(
      op,
      403,
      e("POST", "/e", beacon(), { ...browser, "content-type": "text/plain", "user-agent": "curl/8.0" }),
    );
    await expectAnswer(
      op,
      403,
      e("POST", "/e", beacon(), { ...browser, "content-type": "text/plain", origin: "https://elsewhere.example" }),
    );
    await expectAnswer(op, 413, e("POST", "/e", big(20_000), { ...browser, "content-type": "text/plain" }));
    await expectAnswer(op, 415, e("POST", "/e", beacon(), { ...browser, "content-type": "image/png" }));
    await expectAnswer(op, 422, e("POST", "/e", beacon({ events: [] }), { ...browser, "content-type": "text/plain" }));
    await expectAnswer(
      "OPTIONS /e",
      204,
      e("OPTIONS", "/e", undefined, { origin: "https://anywhere.example", "access-control-request-method": "POST" }),
    );
    await expectAnswer("OPTIONS /e", 204, e("OPTIONS", "/e"));
  });

  it("take conversions with the site's token (202) and refuse the rest (400, 401, 403, 413, 415, 422)", async () => {
    const s2s = client(stack.url);
    const op = "POST /s2s";
    const withToken = { "x-service-token": token };
    await expectAnswer(op, 202, s2s("POST", "/s2s", { goal_id: ids.goal, value: 9.5, id: "order-2" }, withToken));
    const batch = await expectAnswer(
      op,
      202,
      s2s("POST", "/s2s", { events: [{ goal_id: ids.goal, id: "order-2" }, { goal_id: ids.goal2 }] }, withToken),
    );
    expect(JSON.parse(batch.text)).toMatchObject({
      accepted: 1,
      duplicates: 1,
      events: [{ status: "duplicate" }, { status: "stored" }],
    });
    await expectAnswer(op, 400, s2s("POST", "/s2s", "{nope", withToken));
    await expectAnswer(op, 401, s2s("POST", "/s2s", { goal_id: ids.goal }));
    await expectAnswer(
      op,
      403,
      s2s("POST", "/s2s", { goal_id: ids.goal }, { ...withToken, origin: "https://elsewhere.example" }),
    );
    await expectAnswer(op, 413, s2s("POST", "/s2s", big(300_000), withToken));
    await expectAnswer(op, 415, s2s("POST", "/s2s", "{}", { ...withToken, "content-type": "text/plain" }));
    await expectAnswer(op, 422, s2s("POST", "/s2s", { goal_id: UNKNOWN.goal }, withToken));
  });

  it("/healthz and the document itself answer 200", async () => {
    await expectAnswer("GET /healthz", 200, client(stack.url)("GET", "/healthz"));
    await expectAnswer("GET /api/v1/openapi.json", 200, client(stack.url)("GET", "/api/v1/openapi.json"));
  });
});

describe("every operation", () => {
  it("refuses a Host header that is not a host name (400), before any route", async () => {
    for (const op of contract.operations()) {
      const [method, template] = op.split(" ") as [string, string];
      const answer = await rawRequest(stack.url, { method, path: concrete(template), headers: { host: "a b" } });
      const headers = new Headers(Object.entries(answer.headers).map(([name, value]) => [name, String(value)]));
      await expectAnswer(op, 400, Promise.resolve({ status: answer.status, headers, text: answer.body }));
    }
  });

  it("is refused, for a method its path does not list, with 405 and Allow", async () => {
    const anyone = client(stack.url, stack.adminKey);
    const paths = new Set(contract.operations().map((op) => op.split(" ")[1]!));
    for (const template of paths) {
      const path = concrete(template);
      // A path that answers PUT (a site's prop name) is tried with PATCH.
      const method = contract.operations().includes(`PUT ${template}`) ? "PATCH" : "PUT";
      contract.checkMethodNotAllowed(method, path, await anyone(method, path, {}));
    }
    const usage = `/api/v1/keys/${ids.key}/usage`;
    contract.checkMethodNotAllowed("DELETE", usage, await anyone("DELETE", usage));
    // Beyond the document, the dashboard's files too.
    const dashboard = await anyone("POST", "/dashboard/", {});
    expect([dashboard.status, dashboard.headers.get("allow"), dashboard.body.detail]).toEqual([
      405,
      "GET, HEAD",
      expect.stringContaining("POST"),
    ]);
  });

  it("with a key whose limit is used up is refused with 429 and Retry-After", async () => {
    const limited = await admin("POST", "/api/v1/keys", {
      name: "one call",
      scopes: ["admin"],
      rate_limit: { requests: 1, per_seconds: 86_400 },
    });
    const call = client(stack.url, limited.body.key);
    await expectAnswer("GET /api/v1/keys/current", 200, call("GET", "/api/v1/keys/current"));
    for (const [op, [path, body, headers]] of Object.entries(keyRouteCalls()))
      await expectAnswer(op, 429, call(methodOf(op), path, body, headers));
  });

  // Last: the database goes away for good.
  it("answers 503 with Retry-After while the database is down, where it documents one", async () => {
    await database.close();
    for (const [op, [path, body, headers]] of Object.entries(keyRouteCalls()))
      await expectAnswer(op, 503, admin(methodOf(op), path, body, headers));
    const body = JSON.stringify({ version: "5" });
    await expectAnswer(
      "POST /hooks/deployments/{site}",
      503,
      client(stack.url)("POST", `/hooks/deployments/${ids.site}`, body, signStandard("deploy-6", body)),
    );
    await expectAnswer("POST /s2s", 503, client(stack.url)("POST", "/s2s", { goal_id: ids.goal }, { "x-service-token": token }));
    await expectAnswer("GET /api/v1/auth/oidc/start", 503, navigate("/api/v1/auth/oidc/start"));
    await expectAnswer(
      "GET /api/v1/auth/oidc/callback",
      503,
      navigate("/api/v1/auth/oidc/callback?state=abc&code=y", "wren_oidc_state=abc"),
    );
    await expectAnswer(
      "POST /e",
      503,
      client(stack.url)("POST", "/e", beacon(), {
        "user-agent": BROWSER_UA,
        origin: `https://${DOMAIN}`,
        "content-type": "text/plain",
      }),
    );
    await expectAnswer("GET /healthz", 503, client(stack.url)("GET", "/healthz"));
    const viaShare = { authorization: `Share ${shareToken}` };
    await expectAnswer("GET /api/v1/share", 503, client(stack.url)("GET", "/api/v1/share", undefined, viaShare));
    await expectAnswer(
      "POST /share/{token}/unlock",
      503,
      client(stack.url)("POST", `/share/${lockedShareToken}/unlock`, { password: "contract pass" }),
    );
    const fromDashboard = { origin: stack.url };
    const publicCalls: [string, unknown?][] = [
      ["POST /api/v1/auth/passkey/register/options", { invitation: "A".repeat(43) }],
      [
        "POST /api/v1/auth/passkey/register",
        { challenge_id: "chl_x", invitation: "A".repeat(43), response: { id: "x", type: "public-key", response: {} } },
      ],
      ["POST /api/v1/auth/passkey/sign-in/options"],
      ["POST /api/v1/auth/passkey/sign-in", { challenge_id: "chl_x", response: { id: "x", type: "public-key", response: {} } }],
    ];
    for (const [op, body] of publicCalls)
      await expectAnswer(op, 503, client(stack.url)("POST", op.split(" ")[1]!, body, fromDashboard));
    for (const [op, path] of [
      ["GET /api/v1/session", "/api/v1/session"],
      ["GET /api/v1/account/sessions", "/api/v1/account/sessions"],
      ["DELETE /api/v1/account/sessions/{id}", `/api/v1/account/sessions/${UNKNOWN.ses}`],
      ["DELETE /api/v1/session", "/api/v1/session"],
    ] as const)
      await expectAnswer(op, 503, owner.call(methodOf(op), path));
  });

  it("was driven to every answer the document lists for it", () => {
    expect(contract.unseen()).toEqual([]);
  });
});
