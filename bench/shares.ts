/**
 * The cost of reading through a shared dashboard link (docs/dashboard.md "Sharing a dashboard")
 * on one `wren start` stack: the same report reads (the Overview's and the Pages screen's) with a
 * read:reports key, with an open link (`Authorization: Share`: the token hashed and looked up
 * instead of the key) and with a password link and its unlock cookie (an HMAC more); then what
 * one password guess costs the server (PBKDF2-SHA256, 600,000 iterations, in workerd).
 *
 *   npm run bench shares          (BENCH_SHARE_RUNS timed reads per way, default 300)
 *
 * Target: a link's read costs at most 1 ms more than the key's at the median; a guess costs at
 * least 50 ms of the server's time (so ten guesses and then one a minute keep a password of 8
 * characters out of reach). The last line is one JSON object with the figures.
 */
import { startStack } from "../test/helpers/stack";
import { percentile, printJson, timeCalls } from "./load";

const RUNS = Number(process.env.BENCH_SHARE_RUNS ?? 300);
const GUESSES = 9;

export async function run(): Promise<void> {
  const stack = await startStack({ env: { WREN_RATE_LIMIT: "1000000/60" } });
  try {
    /** A call that must succeed (a wrong guess: be refused with 401). */
    const call = (path: string, init: RequestInit = {}, expected: "ok" | 401 = "ok") =>
      fetch(`${stack.url}${path}`, init).then(async (r) => {
        const text = await r.text();
        if (expected === "ok" ? !r.ok : r.status !== expected) throw new Error(`${path}: ${r.status} ${text}`);
        return { headers: r.headers, json: () => JSON.parse(text) };
      });
    const admin = { authorization: `Bearer ${stack.adminKey}`, "content-type": "application/json" };
    const site = await (
      await call("/api/v1/sites", {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ name: "Bench", domain: "share.bench.example" }),
      })
    ).json();
    const key = await (
      await call("/api/v1/keys", {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ name: "reader", scopes: ["read:reports"], sites: [site.id] }),
      })
    ).json();
    const tokenOf = async (body: object) =>
      (
        (await (
          await call(`/api/v1/sites/${site.id}/shares`, { method: "POST", headers: admin, body: JSON.stringify(body) })
        ).json()) as { url: string }
      ).url.split("/share/")[1]!;
    const open = await tokenOf({});
    const locked = await tokenOf({ password: "bench password" });
    const unlocked = await call(`/share/${locked}/unlock`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: "bench password" }),
    });
    const cookie = unlocked.headers.get("set-cookie")!.split(";")[0]!;

    const ways: Record<string, Record<string, string>> = {
      key: { authorization: `Bearer ${key.key}` },
      share: { authorization: `Share ${open}` },
      password_share: { authorization: `Share ${locked}`, cookie },
    };
    const paths = [`/api/v1/overview?site=${site.id}`, `/api/v1/pages?site=${site.id}&period=7d`];
    // Warm every cache once, then alternate the ways so drift on the shared box hits all alike.
    for (const headers of Object.values(ways)) for (const path of paths) await call(path, { headers });
    const times: Record<string, number[]> = { key: [], share: [], password_share: [] };
    for (let round = 0; round < 3; round++)
      for (const [way, headers] of Object.entries(ways))
        times[way]!.push(
          ...(await timeCalls(Math.ceil(RUNS / 3), () => Promise.all(paths.map((path) => call(path, { headers })))).then(
            (t) => t,
          )),
        );
    const summary = Object.fromEntries(
      Object.entries(times).map(([way, t]) => {
        const sorted = t.sort((a, b) => a - b);
        return [way, { p50_ms: +percentile(sorted, 0.5).toFixed(2), p95_ms: +percentile(sorted, 0.95).toFixed(2) }];
      }),
    );
    const guess = await timeCalls(GUESSES, () =>
      call(
        `/share/${locked}/unlock`,
        { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ password: "wrong guess" }) },
        401,
      ),
    );
    const figures = {
      runs: RUNS,
      reads: summary,
      share_overhead_p50_ms: +(summary.share!.p50_ms - summary.key!.p50_ms).toFixed(2),
      password_share_overhead_p50_ms: +(summary.password_share!.p50_ms - summary.key!.p50_ms).toFixed(2),
      guess_p50_ms: +percentile(guess, 0.5).toFixed(1),
    };
    console.log("way             p50 ms   p95 ms   (an Overview and a Pages read, in parallel)");
    for (const [way, s] of Object.entries(summary))
      console.log(`${way.padEnd(15)} ${String(s.p50_ms).padStart(6)}   ${String(s.p95_ms).padStart(6)}`);
    console.log(`one password guess (PBKDF2-SHA256, 600,000 iterations): p50 ${figures.guess_p50_ms} ms`);
    const ok = figures.share_overhead_p50_ms <= 1 && figures.password_share_overhead_p50_ms <= 1 && figures.guess_p50_ms >= 50;
    console.log(ok ? "target met" : "TARGET MISSED");
    printJson(figures);
  } finally {
    await stack.stop();
  }
}
