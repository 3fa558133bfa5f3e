/**
 * Digests in the domain layer against the embedded libSQL server: the schedule's checks (no
 * recipient, too many, an unknown or another site's destination, mail not configured: refused,
 * nothing written), enqueueMail's bounds, the periods, and the scheduler's pass — queued once
 * per period whatever repeats it (a second pass, a second box, a pass after a crash), hidden rows
 * without a label, deltas only between shown figures, and a hostile page path escaped in HTML.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueDueDigests } from "../../worker/alerts/digests";
import { createRule } from "../../worker/domain/alert-rules";
import { createDigest, latestPeriodEnd, periodEnding, previousPeriod, siteDigests } from "../../worker/domain/digests";
import { enqueueMail } from "../../worker/domain/mail";
import { queueInvitationMail } from "../../worker/domain/invitation-mail";
import { insertSite } from "../../worker/domain/sites";
import { publishOnce } from "../../worker/reports/publisher";
import { digestRow } from "../../worker/reports/digest";
import { renderDigest } from "../../worker/domain/digests";
import { addConversions, addEvents, at, sessions, type RawEvent } from "../reports/helpers";
import { openDomainDb, problemOf, type DomainDb } from "./helpers";

let d: DomainDb;
let shop: string;
let other: string;
let destination: string;
let otherDestination: string;
const HOSTILE = "/<script>alert(1)</script>";
const T = at("2026-11-16", 2); // Monday 02:00 UTC: the week 11-09..11-15 has ended and is published.
const MAIL = { WREN_MAIL: "smtp" };

async function rule(site: string): Promise<string> {
  const { rule } = await createRule(
    d.db,
    {
      site,
      kind: "threshold",
      metric: "visitors",
      condition: "below",
      threshold: 1,
      window_hours: 24,
      for_minutes: 0,
      enabled: true,
      destinations: [{ url: "http://127.0.0.1:9/hook", format: "standard" }],
    } as never,
    { k: 5, serverSecret: "0".repeat(64), webhookAllow: "127.0.0.1" },
    T - 86_400_000,
  );
  return rule.destinations[0]!.id;
}

beforeAll(async () => {
  d = await openDomainDb();
  shop = (await insertSite(d.db, { name: "Shop", domain: "shop.example", createdByKey: null })).site.id;
  other = (await insertSite(d.db, { name: "Other", domain: "other.example", createdByKey: null })).site.id;
  destination = await rule(shop);
  otherDestination = await rule(other);
  const views = (prefix: string, n: number, day: string, path: string, source: string | null): RawEvent[] =>
    sessions(prefix, n).map((session) => ({ site: shop, session, path, ts: at(day, 10), dims: source ? { source } : {} }));
  await addEvents(d.client, [
    ...views("a", 12, "2026-11-10", "/", "search.example"),
    ...views("b", 6, "2026-11-11", "/pricing", null),
    ...views("c", 2, "2026-11-12", "/secret-few", "tiny.example"),
    ...views("h", 7, "2026-11-13", HOSTILE, "search.example"),
    ...views("p", 8, "2026-11-03", "/", "search.example"),
  ]);
  await d.client.execute({
    sql: "INSERT INTO goals (id, site_id, name, kind, match) VALUES ('goal_signup', ?, 'Sign <up>', 'event', 'signup')",
    args: [shop],
  });
  await addConversions(
    d.client,
    sessions("a", 6).map((session) => ({ site: shop, goal: "goal_signup", session, ts: at("2026-11-10", 11) })),
  );
  await publishOnce(d.client as never, { now: () => T, graceMs: 0 } as never);
}, 60_000);
afterAll(() => d?.close());

describe("periods", () => {
  it("weekly ends on Sundays, monthly on a month's last day; the previous period is the one before", () => {
    expect(latestPeriodEnd("weekly", "2026-11-15")).toBe("2026-11-15");
    expect(latestPeriodEnd("weekly", "2026-11-16")).toBe("2026-11-15");
    expect(latestPeriodEnd("weekly", "2026-11-14")).toBe("2026-11-08");
    expect(latestPeriodEnd("monthly", "2026-11-30")).toBe("2026-11-30");
    expect(latestPeriodEnd("monthly", "2026-11-29")).toBe("2026-10-31");
    expect(latestPeriodEnd("monthly", "2026-03-01")).toBe("2026-02-28");
    expect(periodEnding("weekly", "2026-11-15")).toEqual({ from: "2026-11-09", to: "2026-11-15" });
    expect(previousPeriod("weekly", { from: "2026-11-09", to: "2026-11-15" })).toEqual({ from: "2026-11-02", to: "2026-11-08" });
    expect(previousPeriod("monthly", { from: "2026-03-01", to: "2026-03-31" })).toEqual({ from: "2026-02-01", to: "2026-02-28" });
  });
});

describe("createDigest refuses bad schedules and writes nothing", () => {
  it.each([
    ["no recipient", {}, MAIL, 422, "email_to"],
    ["11 addresses", { email_to: Array.from({ length: 11 }, (_, i) => `p${i}@example.com`) }, MAIL, 422, "email_to"],
    ["email while mail is not configured", { email_to: ["a@example.com"] }, {}, 409, "email_to"],
    ["an unknown destination", { destination_id: "dst_nope" }, MAIL, 422, "destination_id"],
  ])("%s", async (_what, input, env, status, field) => {
    const before = await d.count("digest_schedules");
    const problem = await problemOf(createDigest(d.db, shop, { frequency: "weekly", ...input }, env, "key_test", T));
    expect(problem).toMatchObject({ status, field });
    expect(await d.count("digest_schedules")).toBe(before);
  });
  it("another site's destination", async () => {
    const problem = await problemOf(
      createDigest(d.db, shop, { frequency: "weekly", destination_id: otherDestination }, MAIL, "key_test", T),
    );
    expect(problem).toMatchObject({ status: 422, field: "destination_id" });
    expect(await d.count("digest_schedules")).toBe(0);
  });
});

describe("enqueueMail", () => {
  it("refuses a bad address or a subject with a line break, writing nothing; queues a good message once", async () => {
    const good = { to: "ops@example.com", subject: "Hello", text: "Body", purpose: "invitation" } as const;
    expect(await problemOf(enqueueMail(d.db, { ...good, to: "not an address" }))).toMatchObject({ status: 422, field: "to" });
    expect(await problemOf(enqueueMail(d.db, { ...good, to: "a@example.com\r\nBcc: b@example.com" }))).toMatchObject({
      status: 422,
      field: "to",
    });
    expect(await problemOf(enqueueMail(d.db, { ...good, subject: "Hi\r\nBcc: x@example.com" }))).toMatchObject({
      status: 422,
      field: "subject",
    });
    expect(await d.count("mail_outbox")).toBe(0);
    const id = await enqueueMail(d.db, good, T);
    const rs = await d.client.execute({
      sql: 'SELECT "to", subject, sent_at, attempts, next_attempt_at FROM mail_outbox WHERE id = ?',
      args: [id],
    });
    expect(rs.rows.map((r) => ({ ...r }))).toEqual([
      { to: "ops@example.com", subject: "Hello", sent_at: null, attempts: 0, next_attempt_at: T },
    ]);
    await d.client.execute("DELETE FROM mail_outbox");
  });
});

describe("the scheduler's pass", () => {
  const options = { now: T, holder: "box-a", k: 5, publicUrl: "https://wren.example", leaseMs: 60_000, mail: true };
  let digestId: string;

  it("starts with the next period to end, then queues the ended week once: a mail per address and one webhook row", async () => {
    const made = await createDigest(
      d.db,
      shop,
      { frequency: "weekly", email_to: ["Ana@example.com", "bo@example.com"], destination_id: destination },
      MAIL,
      "key_test",
      at("2026-11-12", 9),
    );
    digestId = made.id;
    // Made on Thursday 11-12: the last period that ended before it is the week to 11-08.
    expect(made.lastPeriodEnd).toBe("2026-11-08");
    expect(made.emailTo).toEqual(["ana@example.com", "bo@example.com"]);
    expect(await queueDueDigests(d.client as never, options)).toEqual({ leader: true, queued: 1 });
    expect(await d.count("mail_outbox")).toBe(2);
    expect(await d.count("alert_outbox", { column: "type", value: "digest.weekly" })).toBe(1);
    expect((await siteDigests(d.db, shop))[0]!.lastPeriodEnd).toBe("2026-11-15");
  });

  it("a second pass, a second box, and a pass that repeats the period after a crash queue nothing more", async () => {
    expect(await queueDueDigests(d.client as never, options)).toEqual({ leader: true, queued: 0 });
    expect(await queueDueDigests(d.client as never, { ...options, holder: "box-b" })).toEqual({ leader: false, queued: 0 });
    // As if the pass had queued the rows and died before recording the period: composed again, the same ids.
    await d.client.execute({ sql: "UPDATE digest_schedules SET last_period_end = '2026-11-08' WHERE id = ?", args: [digestId] });
    expect(await queueDueDigests(d.client as never, options)).toEqual({ leader: true, queued: 1 });
    expect(await d.count("mail_outbox")).toBe(2);
    expect(await d.count("alert_outbox", { column: "type", value: "digest.weekly" })).toBe(1);
  });

  it("says hidden without a label, shows a delta only where both weeks are shown, and escapes labels in HTML", async () => {
    const mail = (await d.client.execute("SELECT subject, text, html FROM mail_outbox ORDER BY id LIMIT 1")).rows[0]!;
    const payload = String(
      (await d.client.execute("SELECT payload FROM alert_outbox WHERE type = 'digest.weekly'")).rows[0]!.payload,
    );
    const body = JSON.parse(payload) as {
      type: string;
      data: {
        pages: { label: string | null; hidden: boolean; visitors: { delta: unknown } }[];
        sources: { label: string | null; hidden: boolean }[];
      };
    };
    expect(body.type).toBe("digest.weekly");
    expect(mail.subject).toBe("Weekly digest for Shop, 2026-11-09 – 2026-11-15");
    for (const text of [String(mail.text), String(mail.html), payload]) {
      expect(text).not.toContain("secret-few");
      expect(text).not.toContain("tiny.example");
    }
    const hidden = body.data.pages.filter((p) => p.hidden);
    expect(hidden.length).toBeGreaterThan(0);
    for (const row of [...hidden, ...body.data.sources.filter((s) => s.hidden)]) expect(row.label).toBeNull();
    expect(String(mail.text)).toContain("  hidden (fewer than 5)\n");
    // /pricing had no visitors shown the week before: no delta; "/" had 8: a delta.
    expect(body.data.pages.find((p) => p.label === "/pricing")!.visitors.delta).toBeNull();
    expect(body.data.pages.find((p) => p.label === "/")!.visitors.delta).not.toBeNull();
    expect(String(mail.text)).toMatch(/ {2}\/pricing: \S+ \(—\)/);
    expect(String(mail.html)).toContain("/&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(String(mail.html)).not.toContain("<script>");
    expect(String(mail.html)).toContain("Sign &lt;up&gt;");
    expect(String(mail.text)).toContain(HOSTILE);
  });

  it("without mail configured, queues the webhook row and no mail", async () => {
    await d.client.batch(
      ["DELETE FROM mail_outbox", "DELETE FROM alert_outbox", "UPDATE digest_schedules SET last_period_end = '2026-11-08'"],
      "write",
    );
    expect(await queueDueDigests(d.client as never, { ...options, mail: false })).toEqual({ leader: true, queued: 1 });
    expect(await d.count("mail_outbox")).toBe(0);
    expect(await d.count("alert_outbox", { column: "type", value: "digest.weekly" })).toBe(1);
  });
});

describe("invitation mail", () => {
  const invitation = {
    email: "new@example.com",
    link: "https://wren.example/dashboard/invite#tok_abcdef",
    role: "editor",
    siteName: "Shop <b>",
    expiresAt: Date.parse("2026-11-23T02:00:00Z"),
    invitedBy: "Ana",
  };
  it("is queued with the link, role, site and expiry when mail is configured; not at all otherwise", async () => {
    await d.client.execute("DELETE FROM mail_outbox");
    expect(await queueInvitationMail(d.db, {}, invitation, T)).toBe(false);
    expect(await d.count("mail_outbox")).toBe(0);
    expect(await queueInvitationMail(d.db, MAIL, invitation, T)).toBe(true);
    const row = (await d.client.execute('SELECT "to", subject, text, html, purpose FROM mail_outbox')).rows[0]!;
    expect(row.to).toBe("new@example.com");
    expect(row.purpose).toBe("invitation");
    expect(row.subject).toBe("You are invited to Wren (editor, the site Shop <b>)");
    expect(String(row.text)).toBe(
      "Ana invites you to Wren as editor of the site Shop <b>.\n\nAccept (once; the link expires 2026-11-23 02:00:00 UTC):\n" +
        "https://wren.example/dashboard/invite#tok_abcdef\n\nIf you did not expect this, ignore this message: nothing happens unless the link is opened.\n",
    );
    expect(String(row.html)).toContain("the site Shop &lt;b&gt;");
    expect(String(row.html)).toContain('href="https://wren.example/dashboard/invite#tok_abcdef"');
    await d.client.execute("DELETE FROM mail_outbox");
  });
});

describe("a hidden row", () => {
  it("carries no label, no earlier figure and no delta, whatever its label was; the words say hidden", () => {
    const suppressed = { value: null, qualifier: "suppressed" } as const;
    const row = digestRow("/only-two-people", false, suppressed, { value: 9, qualifier: "exact" }, false);
    expect(row).toEqual({ label: null, hidden: true, visitors: { current: suppressed, previous: suppressed, delta: null } });
    expect(digestRow("news.example", true, suppressed, undefined, true)).toMatchObject({
      label: null,
      hidden: true,
      direct: false,
    });
    const shown = digestRow("/", false, { value: 12, qualifier: "estimated" }, { value: 9, qualifier: "exact" }, false);
    expect(shown.visitors.delta).toEqual({ value: 3, qualifier: "estimated" });
    const zero = { current: { value: 0, qualifier: "exact" }, previous: { value: 0, qualifier: "exact" }, delta: null } as const;
    const rendered = renderDigest(
      {
        site: { id: "site_x", name: "X", timezone: "UTC" },
        k: 5,
        period: { from: "2026-11-09", to: "2026-11-15" },
        previous: { from: "2026-11-02", to: "2026-11-08" },
        visitors: zero,
        pageviews: zero,
        pages: [row],
        sources: [],
        goals: [],
      },
      "weekly",
      "https://wren.example",
      T,
    );
    for (const text of [rendered.text, rendered.html, JSON.stringify(rendered.slack), JSON.stringify(rendered.payload)])
      expect(text).not.toContain("only-two-people");
    expect(rendered.text).toContain("Top pages (visitors)\n  hidden (fewer than 5)\n");
  });
});
