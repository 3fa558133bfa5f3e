/**
 * Whether Wren runs under the units' SystemCallFilter= (examples/systemd), measured here where
 * systemd cannot apply it: the real `wren start` (Node, the embedded database, both workerd
 * processes) under `strace -f`, through a start, beacons, an s2s conversion, API and dashboard
 * reads and a SIGTERM stop, and `wren backup` on its data — and every system call they made is
 * one the unit's filter allows (its groups expanded by `systemd-analyze syscall-filter`). A
 * call outside it would fail with EPERM under systemd (SystemCallErrorNumber=EPERM).
 */
import { execFile } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createSite, postBeacon } from "../collector/helpers";
import { client } from "../helpers/http";
import { withLoopbackResolver } from "../helpers/loopback-resolver";
import { cleanEnv } from "../cli/helpers";
import { ROOT, startStack, type Stack } from "../helpers/stack";

const run = promisify(execFile);
const temp = mkdtempSync(join(tmpdir(), "wren-syscalls-"));
let stack: Stack | undefined;
afterAll(async () => {
  await stack?.stop("SIGKILL").catch(() => undefined);
  rmSync(temp, { recursive: true, force: true });
}, 60_000);

/** The system calls a unit's SystemCallFilter= lines allow: each group expanded, recursively. */
async function allowedBy(unit: string): Promise<Set<string>> {
  const entries = [...unit.matchAll(/^SystemCallFilter=(.+)$/gm)].flatMap((m) => m[1]!.trim().split(/\s+/));
  expect(entries.every((e) => !e.startsWith("~"))).toBe(true);
  const allowed = new Set<string>();
  const expand = async (entry: string): Promise<void> => {
    if (!entry.startsWith("@")) {
      allowed.add(entry);
      return;
    }
    const { stdout } = await run("systemd-analyze", ["syscall-filter", entry]);
    const names = stdout
      .split("\n")
      .slice(1)
      .map((line) => line.replace(/#.*/, "").trim())
      .filter(Boolean);
    for (const name of names) await expand(name);
  };
  for (const entry of entries) await expand(entry);
  return allowed;
}

/** The calls in `strace -c` summaries (one per traced command). */
function calledIn(summary: string): Set<string> {
  const called = new Set<string>();
  for (const line of summary.split("\n")) {
    const name = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+\d+\s+(?:\d+\s+)?([a-z0-9_]+)\s*$/.exec(line)?.[1];
    if (name && name !== "total") called.add(name);
  }
  return called;
}

const unit = (name: string) => readFileSync(join(ROOT, "examples/systemd", name), "utf8");

describe("the systemd units' system call filter", () => {
  it("allows every call `wren start` and `wren backup` make", async () => {
    const startSummary = join(temp, "start.txt");
    stack = await startStack({
      launch: (node, args) => withLoopbackResolver("strace", ["-f", "-c", "-o", startSummary, node, ...args]),
    });
    const site = await createSite(stack, "syscalls.example");
    expect(
      (
        await postBeacon(stack.url, site.domain, {
          site: site.id,
          session: "syscalls-visitor-abcdef",
          events: [{ type: "pageview", path: "/" }],
        })
      ).status,
    ).toBe(202);
    const admin = client(stack.url, stack.adminKey);
    const goal = await admin("POST", `/api/v1/sites/${site.id}/goals`, { kind: "event", match: "order" });
    const conversion = await fetch(`${stack.url}/s2s`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-token": site.token },
      body: JSON.stringify({ goal_id: goal.body.id, id: "order-1" }),
    });
    expect(conversion.status).toBe(202);
    expect((await admin("GET", `/api/v1/pages?site=${site.id}&period=7d`)).status).toBe(200);
    expect((await fetch(`${stack.url}/dashboard/`)).status).toBe(200);

    // SIGTERM to `wren start` itself (strace's child), as systemd's KillMode=mixed sends it.
    const { stdout } = await run("pgrep", ["-P", String(stack.process.pid)]);
    const exited = once(stack.process, "exit");
    process.kill(Number(stdout.trim().split("\n")[0]), "SIGTERM");
    await exited;
    expect(stack.output()).toContain("wren: stopped");
    const { dataDir } = stack;
    stack = undefined;

    const backupSummary = join(temp, "backup.txt");
    const env = { ...cleanEnv(), WREN_DATA: dataDir };
    const args = [
      "-f",
      "-c",
      "-o",
      backupSummary,
      process.execPath,
      join(ROOT, "bin/wren.js"),
      "backup",
      join(temp, "nightly.backup"),
    ];
    const backup = await run("strace", args, { cwd: ROOT, env });
    expect(backup.stdout).toContain("backed up");

    const startCalls = calledIn(readFileSync(startSummary, "utf8"));
    const backupCalls = calledIn(readFileSync(backupSummary, "utf8"));
    // The summaries were read: a start waits in epoll, a backup writes its file.
    expect(startCalls.has("epoll_pwait") || startCalls.has("epoll_wait")).toBe(true);
    expect(backupCalls.has("pwrite64") || backupCalls.has("write")).toBe(true);
    const outside = (calls: Set<string>, allowed: Set<string>) => [...calls].filter((call) => !allowed.has(call)).sort();
    const allowedStart = await allowedBy(unit("wren.service"));
    expect(outside(startCalls, allowedStart)).toEqual([]);
    expect(outside(backupCalls, await allowedBy(unit("wren-backup.service")))).toEqual([]);
    // And it is a filter: what a service has no business calling stays out.
    const denied = ["mount", "reboot", "init_module", "kexec_load", "bpf", "ptrace", "swapon", "settimeofday"];
    expect(denied.filter((call) => allowedStart.has(call))).toEqual([]);
  }, 240_000);
});
