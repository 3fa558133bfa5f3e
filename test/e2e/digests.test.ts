/**
 * Scheduled digests against the real stack: `wren start` with WREN_SMTP_URL pointing at an SMTP
 * sink on 127.0.0.1 (test/helpers/smtp-sink.ts) and an alert destination on a loopback webhook
 * receiver. The clock is moved by restarting with another WREN_TEST_CLOCK_OFFSET_MS (no sleeps):
 * first to a Wednesday, where the digest is made (its first period is that week), then past the
 * Sunday that ends it. The SMTP server is down when the period ends: the mail is retried, then
 * sent when it comes back, once; the webhook arrives once, signed. Every figure in the digest is
 * the API's figure for the same period. And the routes are attacked: no key, a read-only key
 * making a digest, another site's digest, hostile input — refused, nothing written.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { client, serveOnLoopback, type LoopbackServer } from "../helpers/http";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp-sink";
import { startStack } from "../helpers/stack";
import { until } from "../helpers/wait";
import { addConversions, addEvents, at, sessions, type RawEvent } from "../reports/helpers";
import { addDays } from "../../worker/reports/timezone";

const DAY_MS = 86_400_000;
const PASSWORD = "s3cret-pa55";
type Figure = { value: number | null; qualifier: string };

// Next week's Monday (UTC): the digest's week W is M..M+6, the week before it P.
const now0 = Date.now();
const todayUtc = Date.parse(new Date(now0).toISOString().slice(0, 10));
const M = new Date(todayUtc + (((8 - new Date(todayUtc).getUTCDay()) % 7) + 7) * DAY_MS).toISOString().slice(0, 10);
const W = { from: M, to: addDays(M, 6) };
const P = { from: addDays(M, -7), to: addDays(M, -1) };
/** Wednesday of W, noon: the digest is made then. Monday after W, 00:30: W has ended. */
const WEDNESDAY = at(addDays(M, 2), 12);
const AFTER = at(addDays(M, 7), 0, 30);

let f: ApiFixture;
let sink: SmtpSink;
let receiver: LoopbackServer;
const received: { headers: Record<string, string>; body: string }[] = [];
let site: string;
let otherSite: string;
let destination: string;
let secret: string;

const waitFor = <T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>) =>
  until(what, probe, 60_000);

async function count(table: string): Promise<number> {
  return Number((await f.database().execute(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
}

beforeAll(async () => {
  sink = await startSmtpSink("wren", PASSWORD);
  receiver = await serveOnLoopback((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
      received.push({ headers, body });
      res.writeHead(200).end("ok");
    });
  });
  f = await apiFixture({
    WREN_SMTP_URL: sink.url,
    WREN_MAIL_FROM: "Wren <wren@example.test>",
    WREN_MAIL_RETRY_SECONDS: "1",
    WREN_WEBHOOK_ALLOW: "127.0.0.1",
    WREN_ALERT_INTERVAL: "1",
    WREN_RATE_LIMIT: "100000/60",
    WREN_TEST_CLOCK_OFFSET_MS: String(WEDNESDAY - Date.now()),
  });
  site = (await f.makeSite("digest.wren.test", "Digest shop")).id;
  otherSite = (await f.makeSite("other-digest.wren.test")).id;
  const goal = (await f.makeGoal(site, { kind: "event", match: "signup", name: "Sign <up>" })).id;
  await f.seedHistory(async (db) => {
    const views = (prefix: string, n: number, day: string, path: string, source: string | null): RawEvent[] =>
      sessions(prefix, n).map((session) => ({ site, session, path, ts: at(day, 10), dims: source ? { source } : {} }));
    await addEvents(db, [
      ...views("a", 14, W.from, "/", "search.example"),
      ...views("b", 7, addDays(W.from, 1), "/pricing", null),
      ...views("c", 2, addDays(W.from, 1), "/secret-few", "tiny.example"),
      ...views("h", 6, W.from, "/<script>alert(1)</script>", "news.example"),
      ...views("p", 9, addDays(P.from, 2), "/", "search.example"),
      ...views("q", 6, addDays(P.from, 3), "/pricing", "news.example"),
    ]);
    await addConversions(
      db,
      sessions("a", 6).map((session) => ({ site, goal, session, ts: at(W.from, 11) })),
    );
  });
  // A rule that never fires, for its destination: the digest goes there too.
  const rule = await f.admin("POST", "/api/v1/alerts", {
    site,
    metric: "visitors",
    condition: "above",
    threshold: 1_000_000_000,
    destinations: [{ url: `${receiver.url}/digest`, format: "standard" }],
  });
  expect(rule.status, rule.text).toBe(201);
  destination = rule.body.destinations[0].id;
  secret = rule.body.destinations[0].secret;
}, 240_000);

afterAll(async () => {
  await f?.close();
  await sink?.stop();
  await receiver?.close();
});

describe("digest routes refuse what they must, writing nothing", () => {
  it("no key, a read-only key making or deleting, another site, hostile input", async () => {
    const reader = await f.makeKey(["read:reports"], [site]);
    const otherEditor = await f.makeKey(["write:alerts", "read:reports"], [otherSite]);
    const anonymous = client(f.stack.url);
    const good = { frequency: "weekly", email_to: ["ana@example.com"] };
    const before = await count("digest_schedules");
    const refusals: [string, Promise<{ status: number; headers: Headers; body: { field?: string } }>, number, string?][] = [
      ["no key", anonymous("POST", `/api/v1/sites/${site}/digests`, good), 401],
      ["no key, list", anonymous("GET", `/api/v1/sites/${site}/digests`), 401],
      ["read-only key", reader.call("POST", `/api/v1/sites/${site}/digests`, good), 403],
      ["another site's key", otherEditor.call("POST", `/api/v1/sites/${site}/digests`, good), 403],
      [
        "bad email",
        f.admin("POST", `/api/v1/sites/${site}/digests`, { frequency: "weekly", email_to: ["not-an-address"] }),
        422,
        "email_to",
      ],
      [
        "header injection",
        f.admin("POST", `/api/v1/sites/${site}/digests`, {
          frequency: "weekly",
          email_to: ["a@example.com\r\nBcc: x@example.com"],
        }),
        422,
        "email_to",
      ],
      [
        "11 addresses",
        f.admin("POST", `/api/v1/sites/${site}/digests`, {
          frequency: "weekly",
          email_to: Array.from({ length: 11 }, (_, i) => `p${i}@example.com`),
        }),
        422,
        "email_to",
      ],
      [
        "unknown destination",
        f.admin("POST", `/api/v1/sites/${site}/digests`, { frequency: "weekly", destination_id: "dst_nope" }),
        422,
        "destination_id",
      ],
      [
        "another site's destination",
        f.admin("POST", `/api/v1/sites/${otherSite}/digests`, { frequency: "weekly", destination_id: destination }),
        422,
        "destination_id",
      ],
      ["no recipient", f.admin("POST", `/api/v1/sites/${site}/digests`, { frequency: "weekly" }), 422, "email_to"],
      [
        "bad frequency",
        f.admin("POST", `/api/v1/sites/${site}/digests`, { frequency: "hourly", email_to: ["a@example.com"] }),
        422,
        "frequency",
      ],
      ["extra field", f.admin("POST", `/api/v1/sites/${site}/digests`, { ...good, last_period_end: "2000-01-01" }), 422],
    ];
    for (const [what, call, status, field] of refusals) {
      const res = await call;
      expect(res.status, what).toBe(status);
      expect(res.headers.get("content-type"), what).toContain("application/problem+json");
      if (field) expect(res.body.field, what).toMatch(new RegExp(`^${field}(\\.|$)`));
    }
    expect(await count("digest_schedules")).toBe(before);
    // One that exists: the read-only key may not delete it, another site's path does not find it.
    const made = await f.admin("POST", `/api/v1/sites/${site}/digests`, good);
    expect(made.status, made.text).toBe(201);
    expect((await reader.call("DELETE", `/api/v1/sites/${site}/digests/${made.body.id}`)).status).toBe(403);
    expect((await f.admin("DELETE", `/api/v1/sites/${otherSite}/digests/${made.body.id}`)).status).toBe(404);
    expect((await otherEditor.call("DELETE", `/api/v1/sites/${site}/digests/${made.body.id}`)).status).toBe(403);
    expect((await otherEditor.call("POST", `/api/v1/sites/${otherSite}/digests/${made.body.id}/preview`)).status).toBe(404);
    expect((await reader.call("GET", `/api/v1/sites/${site}/digests`)).body.digests.map((d: { id: string }) => d.id)).toContain(
      made.body.id,
    );
    expect((await f.admin("DELETE", `/api/v1/sites/${site}/digests/${made.body.id}`)).status).toBe(204);
    expect(await count("digest_schedules")).toBe(before);
    // Both changes are in the audit log, with the key that made them and no address.
    const audit = await f.database().execute({
      sql: "SELECT action, actor_kind, site_id, detail FROM audit_log WHERE target = ? ORDER BY at, action",
      args: [made.body.id],
    });
    expect(audit.rows.map((r) => [r.action, r.actor_kind, r.site_id])).toEqual([
      ["digest.create", "key", site],
      ["digest.delete", "key", site],
    ]);
    expect(String(audit.rows[0]!.detail)).not.toContain("ana@example.com");
  }, 60_000);
});

/** The API's figures for a period, as a read:reports key reads them. */
async function apiFigures(call: ReturnType<typeof client>, period: { from: string; to: string }) {
  const q = `site=${site}&from=${period.from}&to=${period.to}`;
  const [aggregate, pages, sources, conversions] = await Promise.all([
    call("GET", `/api/v1/aggregate?${q}`),
    call("GET", `/api/v1/pages?${q}&limit=5`),
    call("GET", `/api/v1/breakdown?${q}&dimension=source&limit=5`),
    call("GET", `/api/v1/conversions?${q}`),
  ]);
  for (const res of [aggregate, pages, sources, conversions]) expect(res.status, res.text).toBe(200);
  type Row = { path?: string | null; value?: string | null; other: boolean; visitors: Figure };
  return {
    visitors: aggregate.body.results.visitors as Figure,
    pageviews: aggregate.body.results.pageviews as Figure,
    pages: (pages.body.rows as Row[]).map((r) => ({ label: r.path ?? null, other: r.other, visitors: r.visitors })),
    sources: (sources.body.rows as Row[]).map((r) => ({ label: r.value ?? null, other: r.other, visitors: r.visitors })),
    goals: (conversions.body.rows as { goal: { id: string; name: string }; conversions: Figure }[]).map((r) => ({
      id: r.goal.id,
      name: r.goal.name,
      conversions: r.conversions,
    })),
  };
}

describe("a weekly digest", () => {
  it("arrives once by mail (after the SMTP server comes back) and once at the webhook, with the API's figures", async () => {
    const made = await f.admin("POST", `/api/v1/sites/${site}/digests`, {
      frequency: "weekly",
      email_to: ["ana@example.com", "bo@example.com"],
      destination_id: destination,
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body.last_period_end).toBe(P.to);
    const reader = await f.makeKey(["read:reports"], [site]);
    // The preview renders the latest complete week (P, now) and sends nothing.
    const preview = await reader.call("POST", `/api/v1/sites/${site}/digests/${made.body.id}/preview`);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data.period).toEqual(P);
    expect(await count("mail_outbox")).toBe(0);

    // The mail server goes down, and the week ends.
    await sink.stop();
    const stopped = f.stack;
    await stopped.stop(undefined, { keepDatabase: true });
    const again = await startStack({
      dataDir: stopped.dataDir,
      env: { ...stopped.env, WREN_TEST_CLOCK_OFFSET_MS: String(AFTER - Date.now()) },
    });
    f.stack = { ...again, adminKey: stopped.adminKey };

    const hook = await waitFor("the digest at the webhook", () =>
      received.find((r) => r.headers["webhook-id"]?.includes(made.body.id)),
    );
    // Signed at the real clock whatever the service's clock says: the receiver's own check passes.
    expect(() => new Webhook(secret).verify(hook.body, hook.headers as Record<string, string>)).not.toThrow();
    const failing = await waitFor("failed mail attempts", async () => {
      const rs = await f.database().execute("SELECT attempts, last_error, sent_at FROM mail_outbox");
      return rs.rows.length === 2 && rs.rows.every((r) => Number(r.attempts) >= 2 && r.sent_at === null) && rs.rows;
    });
    expect(String(failing[0]!.last_error)).toMatch(/ECONNREFUSED/);
    expect(sink.messages).toHaveLength(0);

    await sink.start();
    await waitFor("both messages in the sink", () => sink.messages.length >= 2);
    await waitFor("the rows marked sent", async () => {
      const rs = await f
        .database()
        .execute("SELECT count(*) AS n FROM mail_outbox WHERE sent_at IS NOT NULL AND next_attempt_at IS NULL");
      return Number(rs.rows[0]!.n) === 2;
    });
    // Neither the password nor a body line is in the supervisor's output.
    const output = f.stack.output() + stopped.output();
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toContain("Top pages");
    expect(output).toMatch(/mail not sent: mail_\S+ \(digest\), attempt 1: /);

    expect(sink.messages.map((m) => m.to).sort()).toEqual([["ana@example.com"], ["bo@example.com"]]);
    const message = sink.messages[0]!;
    expect(message.from).toBe("wren@example.test");
    expect(message.subject).toBe(`Weekly digest for Digest shop, ${W.from} – ${W.to}`);

    // The figures: the API's for W and for the week before, as a read:reports key reads them.
    const current = await apiFigures(reader.call, W);
    const previous = await apiFigures(reader.call, P);
    const body = JSON.parse(hook.body);
    expect(body.type).toBe("digest.weekly");
    expect(body.data.period).toEqual(W);
    expect(body.data.previous).toEqual(P);
    const delta = (a: Figure, b: Figure) =>
      a.value === null || b.value === null
        ? null
        : { value: a.value - b.value, qualifier: a.qualifier === "exact" && b.qualifier === "exact" ? "exact" : "estimated" };
    expect(body.data.visitors).toEqual({
      current: current.visitors,
      previous: previous.visitors,
      delta: delta(current.visitors, previous.visitors),
    });
    expect(body.data.pageviews).toEqual({
      current: current.pageviews,
      previous: previous.pageviews,
      delta: delta(current.pageviews, previous.pageviews),
    });
    const rows = (now: typeof current.pages, before: typeof current.pages) =>
      now.map((r) => {
        const hidden = r.other || r.visitors.value === null;
        const earlier = before.find((b) => !b.other && b.label === r.label)?.visitors ?? { value: null, qualifier: "suppressed" };
        return {
          label: hidden ? null : r.label,
          hidden,
          ...{},
          visitors: {
            current: r.visitors,
            previous: hidden ? { value: null, qualifier: "suppressed" } : earlier,
            delta: hidden ? null : delta(r.visitors, earlier),
          },
        };
      });
    expect(body.data.pages).toEqual(rows(current.pages, previous.pages));
    expect(body.data.sources.map(({ direct: _d, ...r }: { direct?: boolean }) => r)).toEqual(
      rows(current.sources, previous.sources),
    );
    expect(body.data.goals).toEqual(
      current.goals.map((g) => {
        const before = previous.goals.find((p) => p.id === g.id)!.conversions;
        return {
          id: g.id,
          name: g.name,
          conversions: { current: g.conversions, previous: before, delta: delta(g.conversions, before) },
        };
      }),
    );
    // The hidden page and source: counted, never named.
    expect(body.data.pages.some((r: { hidden: boolean }) => r.hidden)).toBe(true);
    for (const text of [hook.body, message.text, message.html]) {
      expect(text).not.toContain("secret-few");
      expect(text).not.toContain("tiny.example");
    }
    // The email says the same figures in words; the hostile path is escaped in HTML.
    const shown = (x: Figure) =>
      x.value === null ? "hidden (fewer than 5)" : `${x.qualifier === "estimated" ? "≈" : ""}${x.value}`;
    expect(message.text).toContain(`  Visitors: ${shown(current.visitors)} (`);
    expect(message.text).toContain(`  Pageviews: ${shown(current.pageviews)} (`);
    expect(message.text).toContain("  hidden (fewer than 5)\n");
    expect(message.html).toContain("/&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(message.html).not.toContain("<script>");
    expect(message.html).toContain("Sign &lt;up&gt;");

    // More passes of the scheduler (its lease renewed three times more) and of the sender: nothing more is sent.
    const lease = async () =>
      Number((await f.database().execute("SELECT expires_at FROM leases WHERE name = 'digest-composer'")).rows[0]!.expires_at);
    const seen = new Set([await lease()]);
    await waitFor("three more scheduler passes", async () => seen.add(await lease()).size >= 4);
    expect(sink.messages).toHaveLength(2);
    expect(received.filter((r) => r.headers["webhook-id"]?.includes(made.body.id))).toHaveLength(1);
    expect(await count("mail_outbox")).toBe(2);
  }, 180_000);
});

describe("an invitation by email", () => {
  it("arrives in the sink with its link, role, site and expiry; its text is cleared from the outbox once sent", async () => {
    const before = sink.messages.length;
    const invited = await f.admin("POST", "/api/v1/people", { site, role: "viewer", email: "newcomer@example.com" });
    expect(invited.status, invited.text).toBe(201);
    const message = await waitFor("the invitation in the sink", () =>
      sink.messages.slice(before).find((m) => m.to[0] === "newcomer@example.com"),
    );
    expect(message.subject).toBe("You are invited to Wren (viewer, the site Digest shop)");
    expect(message.text).toContain(`as viewer of the site Digest shop.`);
    expect(message.text).toContain(`${invited.body.link}\n`);
    expect(message.text).toContain(`the link expires ${invited.body.expires_at.replace("T", " ").replace(/\.\d{3}Z$/, " UTC")}`);
    await waitFor("the invitation's text cleared", async () => {
      const rs = await f.database().execute("SELECT text, html, sent_at FROM mail_outbox WHERE purpose = 'invitation'");
      return rs.rows.length === 1 && rs.rows[0]!.sent_at !== null && rs.rows[0]!.text === "" && rs.rows[0]!.html === null;
    });
  }, 60_000);
});
