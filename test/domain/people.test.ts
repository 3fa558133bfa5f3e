/**
 * The people core without the stack: session expiry on an injected clock (idle and absolute),
 * an account's per-site scopes as the pipeline narrows them, single-use invitations under a
 * race, and the audit log's retention.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callerForAccount } from "../../worker/domain/access";
import { recordAuditStatement } from "../../worker/domain/audit";
import { createInvitation, redeemInvitation } from "../../worker/domain/people/invitations";
import { findSession, sessionSettings, startSession } from "../../worker/domain/people/sessions";
import { applyRetention } from "../../worker/reports/retention";
import { openDomainDb, problemOf, type DomainDb } from "./helpers";

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 1, 12);

describe("people core", () => {
  let d: DomainDb;
  beforeAll(async () => {
    d = await openDomainDb();
  }, 60_000);
  afterAll(() => d?.close());

  async function person(siteId = "*", role: "viewer" | "editor" | "admin" = "viewer"): Promise<string> {
    const inv = await createInvitation(d.db, { siteId, role, invitedBy: "system", now: T0 });
    return (await redeemInvitation(d.db, inv.token, T0, { name: "P" })).accountId;
  }

  it("a session ends 12 h after it was last seen (idle), and is kept alive by use until then", async () => {
    const settings = sessionSettings({});
    const accountId = await person();
    const { cookie } = await startSession(d.db, { accountId, method: "passkey", userAgent: null, now: T0, settings });
    const token = /wren_session=([^;]+)/.exec(cookie)![1]!;
    expect(await findSession(d.db, token, settings, T0 + 11 * HOUR)).toBeDefined(); // touches last_seen
    expect(await findSession(d.db, token, settings, T0 + 22 * HOUR)).toBeDefined(); // 11 h after the touch
    expect(await findSession(d.db, token, settings, T0 + 34 * HOUR)).toBeUndefined(); // 12 h after the last
  });

  it("a session ends 7 days after sign-in however often it is used (absolute)", async () => {
    const settings = sessionSettings({});
    const accountId = await person();
    const { cookie } = await startSession(d.db, {
      accountId,
      method: "passkey",
      userAgent: "Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0",
      now: T0,
      settings,
    });
    const token = /wren_session=([^;]+)/.exec(cookie)![1]!;
    let at = T0;
    while (at + 10 * HOUR < T0 + 7 * 24 * HOUR) {
      at += 10 * HOUR;
      expect(await findSession(d.db, token, settings, at), new Date(at).toISOString()).toBeDefined();
    }
    expect(await findSession(d.db, token, settings, T0 + 7 * 24 * HOUR)).toBeUndefined();
    // Settings by environment: a 1-hour idle limit.
    const short = sessionSettings({ WREN_SESSION_IDLE_HOURS: "1", WREN_SESSION_MAX_DAYS: "2" });
    const again = await startSession(d.db, { accountId, method: "passkey", userAgent: null, now: T0, settings: short });
    const t2 = /wren_session=([^;]+)/.exec(again.cookie)![1]!;
    expect(again.cookie).toContain("Max-Age=172800");
    expect(await findSession(d.db, t2, short, T0 + HOUR)).toBeUndefined();
  });

  it("an account's scopes are per site: the route's scope narrows the sites it reaches", () => {
    const caller = callerForAccount({ id: "acct_x", name: "X", createdAt: T0, sessionId: "ses_x" }, [
      { siteId: "site_a", role: "viewer" },
      { siteId: "site_b", role: "editor" },
    ]);
    expect(caller.hasScope("write:goals")).toBe(true);
    expect(caller.hasScopeOn("write:goals", "site_a")).toBe(false);
    expect(caller.forScope("write:goals").mayActOn("site_a")).toBe(false);
    expect(caller.forScope("write:goals").mayActOn("site_b")).toBe(true);
    expect(caller.forScope("read:reports").allowedSites()).toEqual(["site_a", "site_b"]);
    expect(caller.hasScope("admin")).toBe(false);
    const siteAdmin = callerForAccount({ id: "acct_y", name: "Y", createdAt: T0, sessionId: "ses_y" }, [
      { siteId: "site_a", role: "admin" },
    ]);
    expect(siteAdmin.hasScopeOn("write:sites", "site_a")).toBe(true);
    expect(siteAdmin.hasScopeOn("write:sites", "*")).toBe(false);
    expect(siteAdmin.isAdmin).toBe(false);
    expect(siteAdmin.key.scopes).not.toContain("admin");
  });

  it("an invitation redeemed twice at once makes one account; a used one is refused", async () => {
    const inv = await createInvitation(d.db, { siteId: "*", role: "viewer", invitedBy: "system", now: T0 });
    const before = await d.count("accounts");
    const results = await Promise.allSettled([redeemInvitation(d.db, inv.token, T0), redeemInvitation(d.db, inv.token, T0)]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await d.count("accounts")).toBe(before + 1);
    expect((await problemOf(redeemInvitation(d.db, inv.token, T0))).status).toBe(401);
    const expired = await createInvitation(d.db, { siteId: "*", role: "viewer", invitedBy: "system", now: T0, days: 1 });
    expect((await problemOf(redeemInvitation(d.db, expired.token, T0 + 25 * HOUR))).field).toBe("invitation");
    expect(await d.count("accounts")).toBe(before + 1);
  });

  it("retention deletes audit entries older than WREN_AUDIT_RETENTION_DAYS (default 400) and keeps the rest", async () => {
    const actor = { kind: "system" as const, id: "system", name: "cli" };
    const day = 24 * HOUR;
    await d.db.batch([
      recordAuditStatement(d.db, { actor, action: "key.create", target: "old" }, T0 - 401 * day),
      recordAuditStatement(d.db, { actor, action: "key.create", target: "kept" }, T0 - 399 * day),
    ]);
    await applyRetention(d.client, { now: T0, days: 30 });
    const targets = (await d.client.execute("SELECT target FROM audit_log WHERE action = 'key.create' ORDER BY at")).rows.map(
      (r) => r.target,
    );
    expect(targets).toEqual(["kept"]);
    await applyRetention(d.client, { now: T0, days: 30, auditDays: 100 });
    expect(await d.count("audit_log", { column: "target", value: "kept" })).toBe(0);
  });
});
