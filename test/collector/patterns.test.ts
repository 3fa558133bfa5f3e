/**
 * Path patterns against the real stack: a goal and a beacon built to make a backtracking
 * matcher run for ages must be answered at once, with the service still healthy, and patterns
 * beyond the bounds are refused where they come in (goal creation, the reports' `page=`).
 */
import type { Client } from "@libsql/client";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_PATH_LENGTH } from "../../worker/collector/schemas";
import { MAX_PATTERN_LENGTH, MAX_PATTERN_STARS } from "../../worker/lib/glob";
import { client, type Call } from "../helpers/http";
import { startStack, type Stack } from "../helpers/stack";
import { BROWSER_UA, collectorCounts, count, ensureTrackerBuilt, openDb } from "./helpers";

// As many stars as a goal may have: `/*a*a…*a*b`. A path of `a`s never matches it, and a
// backtracking regex tries every way to share those `a`s between the stars before saying so.
const ATTACK = `/${"*a".repeat(MAX_PATTERN_STARS - 1)}*b`;

let stack: Stack;
let db: Client;
let api: Call;
let site: string;
let goal: string;

async function pageview(path: string) {
  const response = await fetch(`${stack.url}/e`, {
    method: "POST",
    headers: { "content-type": "text/plain", origin: "https://patterns.test", "user-agent": BROWSER_UA },
    body: JSON.stringify({ site, session: randomBytes(16).toString("base64url"), events: [{ type: "pageview", path }] }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const conversions = () => count(db, "SELECT count(*) FROM conversions WHERE goal_id = ?", [goal]);
const goalCount = async () => (await api<{ goals: unknown[] }>("GET", `/api/v1/sites/${site}/goals`)).body.goals.length;

beforeAll(async () => {
  await ensureTrackerBuilt();
  stack = await startStack();
  api = client(stack.url, stack.adminKey);
  db = openDb(stack);
  const created = await api("POST", "/api/v1/sites", { name: "Patterns", domain: "patterns.test" });
  expect(created.status).toBe(201);
  site = created.body.id;
  const made = await api("POST", `/api/v1/sites/${site}/goals`, { kind: "page", match: ATTACK });
  expect(made.status).toBe(201);
  goal = made.body.id;
});

afterAll(async () => {
  db?.close();
  await stack?.stop();
});

describe("a goal pattern built to backtrack", () => {
  it("is matched against the longest path at once, and the service stays healthy", async () => {
    const path = `/${"a".repeat(MAX_PATH_LENGTH - 1)}`;
    expect(path).toHaveLength(MAX_PATH_LENGTH);
    expect(await pageview(path)).toEqual({ status: 202, body: { accepted: 1 } });
    expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
    expect(await conversions()).toBe(0);
  });

  it("still counts a path that matches", async () => {
    expect((await pageview(`/${"a".repeat(MAX_PATH_LENGTH - 2)}b`)).status).toBe(202);
    expect(await conversions()).toBe(1);
  });

  it("cuts a path over the bound to it before matching, so the match stays bounded and the pageview is kept", async () => {
    const before = await collectorCounts(db);
    const answer = await pageview(`/${"a".repeat(MAX_PATH_LENGTH * 10)}`);
    expect(answer).toEqual({ status: 202, body: { accepted: 1 } });
    expect(await collectorCounts(db)).toMatchObject({ events: before.events + 1 });
    const stored = await db.execute("SELECT length(path) AS n FROM events ORDER BY id DESC LIMIT 1");
    expect(stored.rows[0]!.n).toBe(MAX_PATH_LENGTH);
    expect(await conversions()).toBe(1);
  });
});

describe("patterns over the bounds", () => {
  it("are refused as goals with 422 naming match, and nothing is created", async () => {
    const before = await goalCount();
    for (const match of [`/${"*a".repeat(MAX_PATTERN_STARS + 1)}`, `/${"a".repeat(MAX_PATTERN_LENGTH)}`]) {
      const answer = await api("POST", `/api/v1/sites/${site}/goals`, { kind: "page", match });
      expect(answer.status).toBe(422);
      expect(answer.body.field).toBe("match");
    }
    expect(await goalCount()).toBe(before);
  });

  it("are refused as page= filters with 400 naming page", async () => {
    for (const page of [`/${"*a".repeat(MAX_PATTERN_STARS + 1)}`, `/${"a".repeat(MAX_PATTERN_LENGTH)}`]) {
      const answer = await api("GET", `/api/v1/pages?site=${site}&page=${encodeURIComponent(page)}`);
      expect(answer.status).toBe(400);
      expect(answer.body.field).toBe("page");
    }
    // The attack pattern itself is within the bounds: answered, not refused.
    expect((await api("GET", `/api/v1/pages?site=${site}&page=${encodeURIComponent(ATTACK)}`)).status).toBe(200);
  });
});
