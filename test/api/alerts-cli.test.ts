/**
 * `wren alerts create|list|delete` on the real stack (`wren start`, the CLI in its own process on
 * the same data folder): the exact output of each, the secret printed once being the one that
 * signs the rule's notifications (a loopback receiver, allowed by WREN_WEBHOOK_ALLOW, verifies a
 * delivery with `standardwebhooks`), the API reading what the CLI wrote, and refusals that name
 * their flag with the API's own message and write nothing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { destinationSecret } from "../../worker/domain/alert-rules";
import { serveOnLoopback, type LoopbackServer } from "../helpers/http";
import { apiFixture, type ApiFixture } from "./fixtures";

let f: ApiFixture;
let receiver: LoopbackServer;
let site: string;
const received: { headers: Record<string, string>; body: string }[] = [];

beforeAll(async () => {
  receiver = await serveOnLoopback((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), body });
      res.writeHead(204).end();
    });
  });
  // Passes every second; the receiver is on loopback, which only WREN_WEBHOOK_ALLOW opens.
  f = await apiFixture({ WREN_ALERT_INTERVAL: "1", WREN_WEBHOOK_ALLOW: "127.0.0.1" });
  site = (await f.makeSite("cli-alerts.example")).id;
}, 60_000);
afterAll(async () => {
  await f?.close();
  await receiver?.close();
});

const serverSecret = () => readFileSync(join(f.stack.dataDir, "secret.key"), "utf8").trim();

async function rulesOf(siteId: string): Promise<number> {
  const rs = await f.database().execute({ sql: "SELECT count(*) AS n FROM alert_rules WHERE site_id = ?", args: [siteId] });
  return Number(rs.rows[0]!.n);
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Lines of a table as cli/output.ts prints it: columns two spaces apart, padded to the widest cell. */
function tableOf(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

describe("wren alerts", () => {
  let firing: string;
  let smoke: string;

  it("creates a rule and prints its destination's secret once: the secret its notifications are signed with", async () => {
    // A smoke-test goal's conversions are exact at once (a fresh site's hourly figures are
    // suppressed, which decides nothing): with none, "below 1" fires at the next pass.
    smoke = (await f.makeGoal(site, { kind: "event", match: "smoke-test", purpose: "smoke-test" })).id;
    const hook = `${receiver.url}/hook`;
    const made = await f.stack.cli([
      "alerts",
      "create",
      "--site",
      site,
      "--goal",
      smoke,
      "--below",
      "1",
      "--window-hours",
      "1",
      "--url",
      hook,
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toBe("");
    const [, id, destination] = /^Created alert rule (alr_\S+) on .*\nDestination (dst_\S+):/.exec(made.stdout) ?? [];
    const secret = await destinationSecret(serverSecret(), destination!);
    expect(made.stdout).toBe(
      `Created alert rule ${id} on ${site}: conversions of ${smoke} below 1 over 1 h.\n` +
        `Destination ${destination}: ${hook} (standard: signed)\n` +
        `  Secret (shown once, store it now): ${secret}\n`,
    );
    firing = id!;

    // The API reads the rule the CLI wrote, without the secret, the URL masked.
    const listed = await f.admin("GET", `/api/v1/alerts?site=${site}`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.alerts).toEqual([
      expect.objectContaining({
        id,
        site,
        kind: "threshold",
        metric: "goal",
        goal_id: smoke,
        condition: "below",
        threshold: 1,
        window_hours: 1,
        for_minutes: 0,
        destinations: [{ id: destination, url: `${receiver.url}/…`, format: "standard" }],
      }),
    ]);

    // The next pass fires, and the notification verifies with the printed secret.
    const delivery = await until("the firing notification", () => received.find((r) => r.body.includes(id!)));
    const payload = new Webhook(secret).verify(delivery.body, delivery.headers) as { type: string; data: Record<string, any> };
    expect(delivery.headers["webhook-id"]).toBe(`msg_${id!.slice(4)}.1.0`);
    expect(payload.type).toBe("alert.firing");
    expect(payload.data.rule).toMatchObject({
      id,
      site,
      metric: "goal",
      goal_id: smoke,
      condition: "below",
      threshold: 1,
      window_hours: 1,
    });
    expect(payload.data.state).toMatchObject({ from: "ok", to: "firing" });
    expect(payload.data.figure).toEqual({ value: 0, qualifier: "exact" });
  });

  it("makes goal and deployment rules with --json as the API answers, and lists id, kind, rule and state", async () => {
    const goal = (await f.makeGoal(site)).id;
    const slack = "https://hooks.slack.com/services/T000/B000/XXXX";
    const made = await f.stack.cli([
      "alerts",
      "create",
      "--site",
      site,
      "--goal",
      goal,
      "--above",
      "5",
      "--window-hours",
      "168",
      "--for-minutes",
      "30",
      "--url",
      "https://hooks.example.com/wren",
      "--url",
      slack,
      "--format",
      "standard",
      "--format",
      "slack",
      "--json",
    ]);
    expect(made.code, made.stderr).toBe(0);
    const rule = JSON.parse(made.stdout);
    const [standardId, slackId] = rule.destinations.map((d: { id: string }) => d.id);
    expect(rule).toEqual({
      id: expect.stringMatching(/^alr_[A-Za-z0-9_-]{16}$/),
      site,
      kind: "threshold",
      metric: "goal",
      goal_id: goal,
      condition: "above",
      threshold: 5,
      window_hours: 168,
      for_minutes: 30,
      within_minutes: null,
      enabled: true,
      destinations: [
        {
          id: standardId,
          url: "https://hooks.example.com/wren",
          format: "standard",
          secret: await destinationSecret(serverSecret(), standardId),
        },
        { id: slackId, url: slack, format: "slack", secret: await destinationSecret(serverSecret(), slackId) },
      ],
      // A pass a second here: it may have been evaluated already (and stayed ok).
      state: expect.objectContaining({ status: "ok", since: rule.created_at, pending_since: null, deployment_id: null }),
      created_at: expect.any(String),
      updated_at: rule.created_at,
    });
    // Shown once: reading the rule again gives no secret, and each URL masked.
    const read = await f.admin("GET", `/api/v1/alerts/${rule.id}`);
    expect(read.body.destinations).toEqual([
      { id: standardId, url: "https://hooks.example.com/…", format: "standard" },
      { id: slackId, url: "https://hooks.slack.com/services/…", format: "slack" },
    ]);

    const deploy = await f.stack.cli([
      "alerts",
      "create",
      "--site",
      site,
      "--deployment-without-smoke",
      "--url",
      "https://hooks.example.com/deploys",
      "--json",
    ]);
    expect(deploy.code, deploy.stderr).toBe(0);
    const deployRule = JSON.parse(deploy.stdout);
    expect(deployRule).toMatchObject({
      kind: "deployment_without_smoke",
      metric: null,
      threshold: null,
      window_hours: null,
      within_minutes: 15,
    });

    const listed = await f.stack.cli(["alerts", "list", "--site", site]);
    expect(listed.code, listed.stderr).toBe(0);
    // Oldest first.
    expect(listed.stdout).toBe(
      `${tableOf([
        ["id", "kind", "rule", "state"],
        [firing, "threshold", `conversions of ${smoke} below 1 over 1 h`, "firing"],
        [rule.id, "threshold", `conversions of ${goal} above 5 over 168 h for 30 min`, "ok"],
        [deployRule.id, "deployment_without_smoke", "a deployment without a smoke conversion within 15 min", "ok"],
      ])}\n`,
    );

    // --json is the API's list (but for evaluated_at: a pass a second moves it).
    const json = await f.stack.cli(["alerts", "list", "--site", site, "--json"]);
    const unstamped = (list: { alerts: { state: object }[] }) =>
      list.alerts.map((a) => ({ ...a, state: { ...a.state, evaluated_at: null } }));
    expect(unstamped(JSON.parse(json.stdout))).toEqual(unstamped((await f.admin("GET", `/api/v1/alerts?site=${site}`)).body));
    expect(json.stdout).not.toContain("XXXX");
  });

  it("refuses what the API refuses, naming the flag, with the API's message, and writes nothing", async () => {
    const before = await rulesOf(site);
    const low = await f.stack.cli([
      "alerts",
      "create",
      "--site",
      site,
      "--metric",
      "visitors",
      "--below",
      "3",
      "--url",
      "https://hooks.example.com/wren",
    ]);
    expect([low.code, low.stdout, low.stderr]).toEqual([
      2,
      "",
      "wren: --below (threshold): must be 1 (with below: none at all) or at least k = 5: the reports show no figure from 1 to 4, so a threshold from 2 to 4 could never be seen crossed.\n",
    ]);
    const api = await f.admin("POST", "/api/v1/alerts", {
      site,
      metric: "visitors",
      condition: "below",
      threshold: 3,
      destinations: [{ url: "https://hooks.example.com/wren" }],
    });
    expect([api.status, api.body.field, api.body.detail]).toEqual([
      422,
      "threshold",
      "threshold: must be 1 (with below: none at all) or at least k = 5: the reports show no figure from 1 to 4, so a threshold from 2 to 4 could never be seen crossed.",
    ]);

    const cases: [string[], string][] = [
      [
        ["--metric", "visitors", "--above", "10", "--url", "https://10.0.0.1/x"],
        "wren: --url https://10.0.0.1/x: names 10.0.0.1, which is not a public address (WREN_WEBHOOK_ALLOW may allow it).",
      ],
      [
        ["--metric", "visitors", "--above", "10", "--window-hours", "169", "--url", "https://a.example"],
        "wren: --window-hours: Too big: expected number to be <=168",
      ],
      [
        ["--metric", "visitors", "--above", "ten", "--url", "https://a.example"],
        "wren: --above (threshold): must be a finite number",
      ],
      [["--metric", "visitors", "--url", "https://a.example"], "wren: --below/--above: is required: below or above."],
      [
        ["--goal", "goal_AAAAAAAAAAAAAAAA", "--above", "10", "--url", "https://a.example"],
        `wren: --goal: goal_AAAAAAAAAAAAAAAA is not a goal of site ${site}.`,
      ],
      [
        ["--deployment-without-smoke", "--below", "5", "--url", "https://a.example"],
        "wren: --below: belongs to threshold rules, not deployment_without_smoke.",
      ],
      [["--metric", "visitors", "--above", "10"], "wren: --url is required: where to send notifications (repeatable, at most 5) (see `wren alerts create --help`)"],
    ];
    for (const [flags, message] of cases) {
      const refused = await f.stack.cli(["alerts", "create", "--site", site, ...flags]);
      expect([refused.code, refused.stdout, refused.stderr], flags.join(" ")).toEqual([2, "", `${message}\n`]);
    }
    const noSite = await f.stack.cli(["alerts", "list", "--site", "site_AAAAAAAAAAAAAAAA"]);
    expect([noSite.code, noSite.stderr]).toEqual([1, "wren: no site site_AAAAAAAAAAAAAAAA\n"]);
    expect(await rulesOf(site)).toBe(before);
  });

  it("deletes a rule with its history; a second delete finds nothing", async () => {
    const gone = await f.stack.cli(["alerts", "delete", firing]);
    expect([gone.code, gone.stdout, gone.stderr]).toEqual([
      0,
      `Deleted alert rule ${firing} (with its history and undelivered notifications).\n`,
      "",
    ]);
    expect((await f.admin("GET", `/api/v1/alerts/${firing}`)).status).toBe(404);
    const left = await f
      .database()
      .execute({
        sql: "SELECT (SELECT count(*) FROM alert_transitions WHERE rule_id = ?1) + (SELECT count(*) FROM alert_outbox WHERE rule_id = ?1) AS n",
        args: [firing],
      });
    expect(Number(left.rows[0]!.n)).toBe(0);
    const again = await f.stack.cli(["alerts", "delete", firing]);
    expect([again.code, again.stdout, again.stderr]).toEqual([1, "", `wren: no alert rule ${firing}\n`]);
  });
});
