/**
 * What a person's session costs beside an API key, on the real stack: the latency of one
 * authenticated read (GET /api/v1/sites) with a Bearer key and with the session cookie (the
 * cookie's look-up reads the session, the account and its grants), a write with the cookie and
 * CSRF header, and one whole passkey sign-in (options + assertion verified with WebCrypto in
 * workerd + a new session), with a software authenticator (test/helpers/passkey.ts).
 *
 *   npx tsx bench/people.ts        (or: npm run bench people)
 */
import { readFileSync } from "node:fs";
import { join as joinPath } from "node:path";
import { client } from "../test/helpers/http";
import { browser, join, signIn, tokenOf } from "../test/helpers/passkey";
import { startStack } from "../test/helpers/stack";

async function timed(
  rounds: number,
  call: () => Promise<{ status: number }>,
  expected: number,
): Promise<{ median: number; p95: number }> {
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    const answer = await call();
    ms.push(performance.now() - start);
    if (answer.status !== expected) throw new Error(`expected ${expected}, got ${answer.status}`);
  }
  ms.sort((a, b) => a - b);
  return { median: ms[Math.floor(ms.length / 2)]!, p95: ms[Math.floor(ms.length * 0.95)]! };
}

export async function run(): Promise<void> {
  const stack = await startStack({ env: { WREN_RATE_LIMIT: "1000000/60" } });
  try {
    const admin = client(stack.url, stack.adminKey);
    const site = (await admin("POST", "/api/v1/sites", { name: "Bench", domain: "bench-people.example" })).body.id as string;
    const person = browser(stack.url);
    const link = readFileSync(joinPath(stack.dataDir, "first-admin-invitation.txt"), "utf8").trim();
    if ((await join(person, tokenOf(link), "Bench")).status !== 201) throw new Error("join failed");
    // Warm both paths first (isolates, prepared statements).
    await timed(50, () => admin("GET", "/api/v1/sites"), 200);
    await timed(50, () => person.call("GET", "/api/v1/sites"), 200);
    const rows: [string, { median: number; p95: number }][] = [
      ["GET /api/v1/sites, Bearer key", await timed(400, () => admin("GET", "/api/v1/sites"), 200)],
      ["GET /api/v1/sites, session cookie", await timed(400, () => person.call("GET", "/api/v1/sites"), 200)],
      [
        "PATCH /api/v1/sites/{id}, cookie + CSRF",
        await timed(200, () => person.call("PATCH", `/api/v1/sites/${site}`, { name: "Bench" }), 200),
      ],
      ["passkey sign-in (options + assertion + session)", await timed(100, async () => (await signIn(person)).answer, 200)],
    ];
    console.log("people: latency on the real stack (ms; median and p95)");
    for (const [name, t] of rows)
      console.log(`  ${name.padEnd(48)} median ${t.median.toFixed(2).padStart(6)}   p95 ${t.p95.toFixed(2).padStart(6)}`);
  } finally {
    await stack.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
