/**
 * Evaluation, lease and outbox on a real libSQL database, with an injected clock: the state
 * machine's hysteresis and for_minutes, one transition however many evaluators race, the lease
 * passing to another box only when it has run out, claims that never overlap, and the retry
 * schedule to `failed`. Deliveries go to a real HTTP receiver on 127.0.0.1.
 */
import type { Client } from "@libsql/client";
import { createHmac } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { decide, resolveBand } from "../../worker/alerts/decide";
import { drainOutbox, failureLine } from "../../worker/alerts/drain";
import { evaluateRules } from "../../worker/alerts/evaluate";
import { EVALUATOR_LEASE, takeLease } from "../../worker/lib/lease";
import { claimDue, MAX_ATTEMPTS, releaseClaims, retryDelay } from "../../worker/alerts/outbox";
import { sendOnce } from "../../worker/alerts/send";
import { destinationSecret, type AlertRule } from "../../worker/domain/alert-rules";
import { parseWebhookAllow } from "../../worker/lib/webhook-allow";
import { publishStatement } from "../../worker/reports/publication";
import { serveOnLoopback, type LoopbackServer } from "../helpers/http";
import { addSite, clearData, openTestDb, type TestDb } from "../reports/helpers";

const SECRET = "ab".repeat(32);
const T0 = Date.parse("2026-11-23T10:00:30Z");
const MINUTE = 60_000;
const SITE = "site_alerts";
const GOAL = "goal_smoke";

let db: TestDb;
let client: Client;
beforeAll(async () => {
  db = await openTestDb();
  client = db.client;
});
afterAll(() => db?.close());
afterEach(() => clearData(client));

function rule(over: Partial<AlertRule>): AlertRule {
  return {
    id: "alr_test",
    siteId: SITE,
    kind: "threshold",
    metric: "goal",
    goalId: GOAL,
    smoke: true,
    condition: "below",
    threshold: 10,
    windowHours: 1,
    forMinutes: 0,
    withinMinutes: null,
    enabled: true,
    state: "ok",
    seq: 0,
    stateSince: T0,
    pendingSince: null,
    lastValue: null,
    lastQualifier: null,
    evaluatedAt: null,
    deploymentId: null,
    createdAt: T0,
    updatedAt: T0,
    destinations: [],
    ...over,
  };
}

const reading = (value: number | null, at = T0) => ({
  figure: value === null ? { value: null, qualifier: "suppressed" as const } : { value, qualifier: "exact" as const },
  window: { fromMs: at - 3_600_000, toMs: at },
  at,
  deployment: null,
});

describe("the state machine", () => {
  it("fires below the threshold and resolves only past the band, so a counter at the threshold does not flap", () => {
    expect(resolveBand(10)).toBe(1);
    expect(resolveBand(250)).toBe(25);
    expect(decide(rule({}), reading(9)).transition).toEqual({ from: "ok", to: "firing" });
    const firing = rule({ state: "firing", seq: 1 });
    expect(decide(firing, reading(10)).transition).toBeNull();
    expect(decide(firing, reading(9)).transition).toBeNull();
    expect(decide(firing, reading(11))).toEqual({ state: "ok", pendingSince: null, transition: { from: "firing", to: "ok" } });
    const above = rule({ condition: "above", threshold: 100, state: "firing" });
    expect(decide(above, reading(91)).transition).toBeNull();
    expect(decide(above, reading(90)).transition).toEqual({ from: "firing", to: "ok" });
  });

  it("decides nothing on a suppressed figure", () => {
    expect(decide(rule({}), reading(null))).toEqual({ state: "ok", pendingSince: null, transition: null });
    expect(decide(rule({ state: "firing", pendingSince: null }), reading(null)).transition).toBeNull();
  });

  it("waits for_minutes of figures before firing, and forgets the wait when the condition lapses", () => {
    const waiting = rule({ forMinutes: 10 });
    const first = decide(waiting, reading(0, T0));
    expect(first).toEqual({ state: "ok", pendingSince: T0, transition: null });
    expect(decide({ ...waiting, pendingSince: T0 }, reading(0, T0 + 9 * MINUTE)).transition).toBeNull();
    expect(decide({ ...waiting, pendingSince: T0 }, reading(0, T0 + 10 * MINUTE)).transition).toEqual({ from: "ok", to: "firing" });
    expect(decide({ ...waiting, pendingSince: T0 }, reading(12, T0 + 5 * MINUTE)).pendingSince).toBeNull();
  });
});

async function seedRules(n: number, receiverUrl: string): Promise<string[]> {
  await addSite(client, SITE);
  await client.execute({ sql: "INSERT INTO goals (id, site_id, name, kind, match, purpose) VALUES (?, ?, 'smoke', 'event', 'smoke', 'smoke-test')", args: [GOAL, SITE] });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `alr_rule${i}`;
    ids.push(id);
    await client.batch(
      [
        {
          sql:
            "INSERT INTO alert_rules (id, site_id, kind, metric, goal_id, condition, threshold, window_hours, for_minutes, enabled, state, seq, state_since, created_at, updated_at) " +
            "VALUES (?, ?, 'threshold', 'goal', ?, 'below', 1, 1, 0, 1, 'ok', 0, ?, ?, ?)",
          args: [id, SITE, GOAL, T0, T0, T0],
        },
        { sql: "INSERT INTO alert_destinations (id, rule_id, position, url, format) VALUES (?, ?, 0, ?, 'standard')", args: [`dst_${i}`, id, receiverUrl] },
      ],
      "write",
    );
  }
  return ids;
}

const options = (holder: string, now: number) => ({ now, holder, k: 5, publicUrl: "http://127.0.0.1:1", leaseMs: 30_000 });

describe("evaluation across boxes", () => {
  it("makes one transition and one notification per rule however many boxes evaluate at once", async () => {
    await seedRules(3, "http://127.0.0.1:9/hook");
    const runs = await Promise.all(["box_a", "box_b", "box_c"].map((holder) => evaluateRules(client as never, options(holder, T0))));
    expect(runs.filter((r) => r.leader)).toHaveLength(1);
    expect(runs.reduce((n, r) => n + r.transitions, 0)).toBe(3);
    const [transitions, outbox, states] = await client.batch(
      ["SELECT count(*) AS n FROM alert_transitions", "SELECT id FROM alert_outbox ORDER BY id", "SELECT DISTINCT state, seq FROM alert_rules"],
      "read",
    );
    expect(Number(transitions!.rows[0]!.n)).toBe(3);
    expect(outbox!.rows.map((r) => String(r.id))).toEqual(["msg_rule0.1.0", "msg_rule1.1.0", "msg_rule2.1.0"]);
    expect(states!.rows.map((r) => [r.state, Number(r.seq)])).toEqual([["firing", 1]]);
  });

  it("passes the lease to another box only once it has run out, and a box that lost it writes nothing", async () => {
    await seedRules(1, "http://127.0.0.1:9/hook");
    expect(await takeLease(client as never, EVALUATOR_LEASE, "box_a", T0, 30_000)).toBe(true);
    expect((await evaluateRules(client as never, options("box_b", T0 + 29_999))).leader).toBe(false);
    expect(Number((await client.execute("SELECT count(*) AS n FROM alert_transitions")).rows[0]!.n)).toBe(0);
    const later = await evaluateRules(client as never, options("box_b", T0 + 30_000));
    expect(later).toEqual({ leader: true, rules: 1, transitions: 1 });
    // box_a's lease is gone: its renewal fails, and so would its fenced writes.
    expect(await takeLease(client as never, EVALUATOR_LEASE, "box_a", T0 + 30_001, 30_000)).toBe(false);
  });
});

describe("the outbox", () => {
  let receiver: LoopbackServer;
  const seen: { id: string; signature: string; timestamp: string; body: string }[] = [];
  let answers: number[] = [];
  beforeAll(async () => {
    receiver = await serveOnLoopback((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push({ id: String(req.headers["webhook-id"]), signature: String(req.headers["webhook-signature"]), timestamp: String(req.headers["webhook-timestamp"]), body });
        res.writeHead(answers.shift() ?? 200).end("x".repeat(100_000));
      });
    });
  });
  afterAll(() => receiver?.close());
  afterEach(() => {
    seen.length = 0;
    answers = [];
  });

  it("never lets two boxes claim the same row", async () => {
    await seedRules(20, `${receiver.url}/hook`);
    await evaluateRules(client as never, options("box_a", T0));
    const [a, b] = await Promise.all([claimDue(client as never, "box_a", T0, 15), claimDue(client as never, "box_b", T0, 15)]);
    const ids = [...a, ...b].map((r) => r.id);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
    // A claim holds until released: nothing is due for a third box, until box_a releases its own.
    expect(await claimDue(client as never, "box_c", T0 + 1000, 50)).toEqual([]);
    await releaseClaims(client as never, "box_a");
    expect((await claimDue(client as never, "box_c", T0 + 1000, 50)).map((r) => r.id).sort()).toEqual(a.map((r) => r.id).sort());
  });

  it("retries with the same webhook-id, signed each time, on the backoff schedule, until delivered", async () => {
    await seedRules(1, `${receiver.url}/hook`);
    await evaluateRules(client as never, options("box_a", T0));
    answers = [500, 500, 503, 200];
    let now = T0;
    const drain = () => drainOutbox(client as never, { holder: "box_a", now: () => now, serverSecret: SECRET, allow: parseWebhookAllow("127.0.0.1"), retryBaseMs: 30_000 });
    expect(await drain()).toEqual({ attempts: 1, delivered: 0 });
    // Not due before its backoff: 30 s, then 60 s, then 120 s.
    for (const wait of [30_000, 60_000, 120_000]) {
      now += wait - 1;
      expect(await drain()).toEqual({ attempts: 0, delivered: 0 });
      now += 1;
      expect((await drain()).attempts).toBe(1);
    }
    expect(seen.map((s) => s.id)).toEqual(Array(4).fill("msg_rule0.1.0"));
    // Standard Webhooks: base64 HMAC-SHA256 of "id.timestamp.body" under the secret's key bytes,
    // computed here with node:crypto (the package's verify() also checks the timestamp against the
    // real clock, which this test's clock is not).
    const key = Buffer.from((await destinationSecret(SECRET, "dst_0")).slice("whsec_".length), "base64");
    expect(seen.map((s) => Number(s.timestamp))).toEqual([0, 30, 90, 210].map((d) => Math.floor(T0 / 1000) + d));
    for (const s of seen) {
      expect(s.signature).toBe(`v1,${createHmac("sha256", key).update(`${s.id}.${s.timestamp}.${s.body}`).digest("base64")}`);
    }
    const row = (await client.execute("SELECT status, attempts, delivered_at FROM alert_outbox")).rows[0]!;
    expect([row.status, Number(row.attempts), Number(row.delivered_at)]).toEqual(["delivered", 4, now]);
    const attempts = await client.execute("SELECT status FROM alert_delivery_attempts ORDER BY attempt");
    expect(attempts.rows.map((r) => Number(r.status))).toEqual([500, 500, 503, 200]);
  });

  it("gives up after the last attempt: the schedule doubles to 12 h, then the row is failed", async () => {
    const delays = Array.from({ length: MAX_ATTEMPTS }, (_, i) => retryDelay(i + 1, 30_000));
    expect(delays).toEqual([30, 60, 120, 240, 480, 960, 1920, 3840, 7680, 15360, 30720, 43200, null].map((s) => (s === null ? null : s * 1000)));
    await seedRules(1, `${receiver.url}/hook`);
    await evaluateRules(client as never, options("box_a", T0));
    answers = Array(MAX_ATTEMPTS).fill(500);
    let now = T0;
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await drainOutbox(client as never, { holder: "box_a", now: () => now, serverSecret: SECRET, allow: parseWebhookAllow("127.0.0.1"), retryBaseMs: 30_000 });
      now += delays[i] ?? 0;
    }
    const row = (await client.execute("SELECT status, attempts FROM alert_outbox")).rows[0]!;
    expect([row.status, Number(row.attempts)]).toEqual(["failed", MAX_ATTEMPTS]);
    expect(seen).toHaveLength(MAX_ATTEMPTS);
  });

  it("escapes caller text in a Slack message: a deployment's version can neither ping the channel nor disguise a link", async () => {
    const version = "<!channel> <https://evil.example|Overview> & <@U123>";
    await addSite(client, SITE);
    await client.batch(
      [
        {
          sql:
            "INSERT INTO alert_rules (id, site_id, kind, within_minutes, for_minutes, enabled, state, seq, state_since, created_at, updated_at) " +
            "VALUES ('alr_slack', ?, 'deployment_without_smoke', 15, 0, 1, 'ok', 0, ?, ?, ?)",
          args: [SITE, T0, T0, T0],
        },
        { sql: "INSERT INTO alert_destinations (id, rule_id, position, url, format) VALUES ('dst_slack', 'alr_slack', 0, ?, 'slack')", args: [`${receiver.url}/slack`] },
        { sql: "INSERT INTO deployments (id, site_id, version, external_id, ts, created_at) VALUES ('dep_evil', ?, ?, 'x', ?, ?)", args: [SITE, version, T0, T0] },
      ],
      "write",
    );
    const now = T0 + 15 * MINUTE;
    expect((await evaluateRules(client as never, options("box_a", now))).transitions).toBe(1);
    const publicUrl = "http://127.0.0.1:1/a|b>c";
    // The link's URL is the service's own; escaped too, its `|` encoded, should it ever hold one.
    await client.execute({ sql: "UPDATE alert_outbox SET payload = replace(payload, 'http://127.0.0.1:1', ?)", args: [publicUrl] });
    await drainOutbox(client as never, { holder: "box_a", now: () => now, serverSecret: SECRET, allow: parseWebhookAllow("127.0.0.1"), retryBaseMs: 30_000 });
    expect(seen.map((s) => JSON.parse(s.body))).toEqual([
      {
        text:
          ":rotating_light: Firing: a deployment without a smoke conversion within 15 min on site_alerts. Figure: 0, " +
          "2026-11-23T10:00:30.000Z – 2026-11-23T10:15:30.000Z. " +
          "Deployment &lt;!channel&gt; &lt;https://evil.example|Overview&gt; &amp; &lt;@U123&gt; (2026-11-23T10:00:30.000Z). " +
          "<http://127.0.0.1:1/a%7Cb&gt;c/api/v1/overview?site=site_alerts&amp;deployment=dep_evil|Overview>",
      },
    ]);
  });

  it("masks the destination's URL in a delivery error the history shows", async () => {
    const url = "https://hooks.slack.com/services/T0/B0/SECRETTOKEN";
    const result = await sendOnce(
      { id: "msg_x", ruleId: "alr_x", destinationId: "dst_x", type: "alert.test", payload: "{}", attempts: 0, url, format: "standard" },
      {
        secret: await destinationSecret(SECRET, "dst_x"),
        allow: parseWebhookAllow(""),
        now: T0,
        // What a runtime's fetch may say when it cannot reach a URL: the URL itself.
        fetch: async () => {
          throw new TypeError(`fetch failed: ${url} (connection refused)`);
        },
      },
    );
    expect(result.error).toBe("TypeError: fetch failed: https://hooks.slack.com/services/… (connection refused)");
  });

  it("refuses a destination the allow list no longer covers, without sending", async () => {
    await seedRules(1, `${receiver.url}/hook`);
    await evaluateRules(client as never, options("box_a", T0));
    const run = await drainOutbox(client as never, { holder: "box_a", now: () => T0, serverSecret: SECRET, allow: parseWebhookAllow(""), retryBaseMs: 30_000 });
    expect(run).toEqual({ attempts: 1, delivered: 0 });
    expect(seen).toEqual([]);
    const attempt = (await client.execute("SELECT status, error FROM alert_delivery_attempts")).rows[0]!;
    expect(attempt.status).toBeNull();
    expect(String(attempt.error)).toMatch(/^url must be an https:\/\/ URL/);
  });
});

describe("a rule on a new site", () => {
  /** A visitors rule "below 20 over 24 h" on a site registered at `createdAt`, with everything published through T0. */
  async function hourlyRule(createdAt: number): Promise<void> {
    await addSite(client, SITE);
    await client.batch(
      [
        { sql: "UPDATE sites SET created_at = ? WHERE id = ?", args: [createdAt, SITE] },
        publishStatement(T0, T0),
        {
          sql:
            "INSERT INTO alert_rules (id, site_id, kind, metric, condition, threshold, window_hours, for_minutes, enabled, state, seq, state_since, created_at, updated_at) " +
            "VALUES ('alr_new', ?, 'threshold', 'visitors', 'below', 20, 24, 0, 1, 'ok', 0, ?, ?, ?)",
          args: [SITE, T0, T0, T0],
        },
      ],
      "write",
    );
  }
  const ruleRow = async () =>
    (await client.execute("SELECT state, seq, last_value, last_qualifier, evaluated_at FROM alert_rules WHERE id = 'alr_new'")).rows[0]!;

  it("does not count the hours before the site existed: a 6-minute-old site's below-20 rule waits instead of firing", async () => {
    await hourlyRule(T0 - 6 * MINUTE);
    const run = await evaluateRules(client as never, options("box_a", T0));
    expect([run.rules, run.transitions]).toEqual([1, 0]);
    expect({ ...(await ruleRow()) }).toEqual({ state: "ok", seq: 0, last_value: null, last_qualifier: null, evaluated_at: T0 });
    expect((await client.execute("SELECT count(*) AS n FROM alert_transitions")).rows[0]!.n).toBe(0);
  });

  it("reads its figure once the whole window lies after the site's creation", async () => {
    // The last closed hour ends at 10:00 (T0 is 10:00:30); its 24 h window starts at 10:00 the day before.
    await hourlyRule(Date.parse("2026-11-22T10:00:00Z"));
    const run = await evaluateRules(client as never, options("box_a", T0));
    expect([run.rules, run.transitions]).toEqual([1, 1]);
    expect(await ruleRow()).toMatchObject({ state: "firing", seq: 1, last_value: 0 });
  });
});

describe("a failed attempt's log line", () => {
  const row = {
    id: "msg_1",
    ruleId: "alr_r",
    destinationId: "dst_d",
    type: "alert.firing",
    payload: "{}",
    attempts: 0,
    url: "https://hooks.example.com/services/T0/B0/SECRET",
    format: "standard" as const,
  };

  it("names the rule, the host only, the attempt and the reason, and what comes next", () => {
    expect(failureLine(row, { status: 500, error: null, durationMs: 3 }, 30_000)).toBe(
      "alert delivery failed: rule alr_r to hooks.example.com, attempt 1 of 13: HTTP 500; next attempt in 30 s",
    );
    // An error that quotes the URL is written with the host instead, on one line.
    const quoting = { status: null, error: `TypeError: cannot reach ${row.url}\nat x`, durationMs: 3 };
    expect(failureLine({ ...row, attempts: 12 }, quoting, 30_000)).toBe(
      "alert delivery failed: rule alr_r to hooks.example.com, attempt 13 of 13: cannot reach hooks.example.com; no more attempts",
    );
    const gone = { status: null, error: "the destination no longer exists", durationMs: 0 };
    expect(failureLine({ ...row, url: null, format: null }, gone, 30_000)).toBe(
      "alert delivery failed: rule alr_r to dst_d (deleted), attempt 1 of 13: the destination no longer exists; next attempt in 30 s",
    );
  });
});
