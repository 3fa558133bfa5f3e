/**
 * JSON nested thousands of levels deep, small enough for every size bound (6 KB), on the real
 * stack's four JSON entry points: a beacon (`POST /e`), a server-side conversion (`POST /s2s`),
 * an API body (`POST /api/v1/sites`) and a signed deployment delivery. Each is a 400
 * problem naming `body`, nothing is written, and the service logs no unhandled error — where
 * a recursive walk over such a value used to overflow the stack (a 500, `RangeError`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { apiFixture, type ApiFixture } from "../api/fixtures";

let f: ApiFixture;
let site: { id: string; s2s_token: string };
let hookSecret: string;

beforeAll(async () => {
  f = await apiFixture();
  site = await f.makeSite("deep.example");
  const hook = await f.admin("POST", `/api/v1/sites/${site.id}/deployment-hook`);
  expect(hook.status, hook.text).toBe(200);
  hookSecret = hook.body.secret;
}, 60_000);
afterAll(() => f?.close());

const DEPTH = 3000;
/** `[[[…]]]` and `{"":{"":…}}`, DEPTH levels: 6 KB and 15 KB, under every body limit. */
const deepArray = "[".repeat(DEPTH) + "]".repeat(DEPTH);
const deepObject = '{"":'.repeat(DEPTH) + "1" + "}".repeat(DEPTH);
/** Deep inside a body that is otherwise what the entry point takes. */
const wrapped = (deep: string) =>
  `{"site":"${site.id}","session":"abcdefghijklmnopqrstuv","events":[{"type":"pageview","path":"/","x":${deep}}]}`;

const PROBLEM = {
  type: "about:blank",
  title: "Bad Request",
  status: 400,
  detail: "The body is nested deeper than 32 levels.",
  field: "body",
};

async function counts(): Promise<Record<string, number>> {
  const db = f.database();
  const out: Record<string, number> = {};
  for (const table of ["events", "conversions", "sites", "deployments"]) {
    out[table] = Number((await db.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
  }
  return out;
}

async function post(path: string, body: string, headers: Record<string, string>) {
  const res = await fetch(`${f.stack.url}${path}`, { method: "POST", headers, body });
  const text = await res.text();
  return { status: res.status, type: res.headers.get("content-type"), text };
}

function signed(body: string): Record<string, string> {
  const id = `msg_${Math.random().toString(36).slice(2)}`;
  const at = new Date();
  return {
    "content-type": "application/json",
    "webhook-id": id,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(hookSecret).sign(id, at, body),
  };
}

describe("JSON nested deeper than 32 levels", () => {
  it("is a 400 naming body at every entry point, writes nothing and logs no unhandled error", async () => {
    const before = await counts();
    const logBefore = f.stack.output().length;
    const browser = {
      "content-type": "text/plain",
      origin: "https://deep.example",
      "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36",
    };
    const cases: [string, string, Record<string, string>][] = [];
    for (const deep of [deepArray, deepObject]) {
      cases.push(
        ["/e", deep, browser],
        ["/e", wrapped(deep), browser],
        ["/s2s", deep, { "content-type": "application/json", "x-service-token": site.s2s_token }],
        [
          "/api/v1/sites",
          `{"domain":"deeper.example","name":${deep}}`,
          { "content-type": "application/json", authorization: `Bearer ${f.stack.adminKey}` },
        ],
        [`/hooks/deployments/${site.id}`, `{"version":${deep}}`, signed(`{"version":${deep}}`)],
      );
    }
    for (const [path, body, headers] of cases) {
      expect(body.length).toBeLessThan(16 * 1024);
      const res = await post(path, body, headers);
      expect([res.status, res.type, JSON.parse(res.text)], `${path} ${body.slice(0, 40)}`).toEqual([
        400,
        "application/problem+json",
        PROBLEM,
      ]);
    }
    expect(await counts()).toEqual(before);
    const log = f.stack.output().slice(logBefore);
    expect(log).not.toMatch(/unhandled|RangeError|Maximum call stack/i);
  });

  it("takes 32 levels, and counts brackets inside strings as text", async () => {
    /** A value `levels` objects deep; in a body's own object, one level more. */
    const nested = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
    const admin = { "content-type": "application/json", authorization: `Bearer ${f.stack.adminKey}` };
    // 32 levels, the body's own object counted: refused by the schema (422), not by the depth bound.
    const deepest = await post("/api/v1/sites", `{"domain":"d32.example","name":${nested(31)}}`, admin);
    expect([deepest.status, JSON.parse(deepest.text).field]).toEqual([422, "name"]);
    const over = await post("/api/v1/sites", `{"domain":"d33.example","name":${nested(32)}}`, admin);
    expect([over.status, JSON.parse(over.text).detail]).toEqual([400, PROBLEM.detail]);
    // Brackets and escaped quotes in a string are text, at any count.
    const text = '[[[{{{\\"]]]' + "[".repeat(40);
    const made = await post("/api/v1/sites", JSON.stringify({ domain: "brackets.example", name: text }), admin);
    expect(made.status, made.text).toBe(201);
    expect(JSON.parse(made.text).name).toBe(text);
  });
});
