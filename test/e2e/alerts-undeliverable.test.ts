/**
 * Alert destinations nothing delivers to, on the real stack (`wren start`, retries after a
 * second): a closed port on 127.0.0.1, and an https:// destination on 127.0.0.1 that answers in
 * plain HTTP (its TLS handshake fails, which workerd logs as an internal error with a native
 * stack). Each failed attempt is exactly one line on the service's output naming the rule, the
 * destination's host (never its path, which may be its secret), the attempt and the reason;
 * no workerd record or stack trace. Nothing leaves loopback (WREN_WEBHOOK_ALLOW: 127.0.0.1).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";
import { serveOnLoopback, type LoopbackServer } from "../helpers/http";
import { freePort } from "../helpers/ports";

const ENV = { WREN_WEBHOOK_ALLOW: "127.0.0.1", WREN_ALERT_INTERVAL: "1", WREN_WEBHOOK_RETRY_SECONDS: "1" };

let f: ApiFixture;
let plain: LoopbackServer;
let domains = 0;

beforeAll(async () => {
  f = await apiFixture(ENV);
  plain = await serveOnLoopback((_req, res) => res.end("plain http"));
});

afterAll(async () => {
  await plain?.close();
  await f?.close();
});

/** A rule on a new site that never fires (above a billion), sending to `url`; a test notification queued. */
async function testNotification(url: string): Promise<string> {
  const site = (await f.makeSite(`undeliverable-${++domains}.example.test`)).id;
  const goal = await f.makeGoal(site, { kind: "event", match: "smoke", purpose: "smoke-test" });
  const made = await f.admin("POST", "/api/v1/alerts", {
    site,
    metric: "goal",
    goal_id: goal.id,
    condition: "above",
    threshold: 1_000_000_000,
    window_hours: 1,
    destinations: [{ url }],
  });
  expect(made.status, made.text).toBe(201);
  const test = await f.admin("POST", `/api/v1/alerts/${made.body.id}/test`);
  expect(test.status, test.text).toBe(202);
  return made.body.id as string;
}

/** Waits until the rule's test notification has failed twice; then the output since `from`. */
async function twoAttempts(rule: string, from: number): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const h = (await f.admin("GET", `/api/v1/alerts/${rule}/history`)).body;
    if (h.tests[0]?.attempts.length >= 2) break;
    if (Date.now() > deadline) throw new Error("not two attempts in 20 s");
    await new Promise((r) => setTimeout(r, 100));
  }
  // The second attempt's line is written as it is recorded; give the pipe a moment.
  await new Promise((r) => setTimeout(r, 300));
  return f.stack.output().slice(from);
}

describe("an undeliverable alert destination", () => {
  it("logs one line per failed attempt for a closed port: rule, host, attempt, reason", async () => {
    const port = await freePort();
    const from = f.stack.output().length;
    const rule = await testNotification(`http://127.0.0.1:${port}/hooks/T0SECRET/B0SECRET`);
    const output = await twoAttempts(rule, from);
    const lines = output.split("\n").filter((l) => l.includes(rule) || /jsg|stack|workerd/i.test(l));
    const line = (n: number, next: number) =>
      `alert delivery failed: rule ${rule} to 127.0.0.1:${port}, attempt ${n} of 13: Network connection lost.; next attempt in ${next} s`;
    expect(lines.slice(0, 2)).toEqual([line(1, 1), line(2, 2)]);
    expect(output).not.toContain("SECRET");
    expect(output).not.toMatch(/jsg|stack:|wdErrId/);
  });

  it("logs one line per failed TLS handshake with workerd's reason, and none of workerd's internal-error record or stack", async () => {
    const from = f.stack.output().length;
    const rule = await testNotification(`https://127.0.0.1:${plain.port}/hooks/T0SECRET/B0SECRET`);
    const output = await twoAttempts(rule, from);
    const lines = output.split("\n").filter((l) => l.includes(rule) || /jsg|stack|workerd|internal error/i.test(l));
    const line = (n: number, next: number) =>
      `alert delivery failed: rule ${rule} to 127.0.0.1:${plain.port}, attempt ${n} of 13: TLS handshake failed: received corrupt message of type InvalidContentType; next attempt in ${next} s`;
    expect(lines.slice(0, 2)).toEqual([line(1, 1), line(2, 2)]);
    expect(output).not.toContain("SECRET");
    expect(output).not.toMatch(/jsg|stack:|wdErrId|reference =/);
  });
});
