/**
 * The systemd units in examples/systemd, as an operator installs them: with the checkout's path
 * (/opt/wren) replaced by this one, so every ExecStart names an executable that exists (the
 * pinned Node from node_modules/.bin and bin/wren.js), `systemd-analyze verify` accepts each with
 * no warning, and wren.service keeps every hardening option docs/operations.md lists — a unit
 * with one of them removed is caught by the same check.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/stack";

const run = promisify(execFile);
const UNITS = ["wren.service", "wren-backup.service", "wren-backup.timer"] as const;
const temp = mkdtempSync(join(tmpdir(), "wren-systemd-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** The unit as installed from this checkout. */
const installed = (name: string) => readFileSync(join(ROOT, "examples/systemd", name), "utf8").replaceAll("/opt/wren", ROOT);

/** `systemd-analyze verify` on the units, written under their own names in a folder of their own. */
async function verify(units: Record<string, string>): Promise<{ code: number; stderr: string }> {
  const dir = mkdtempSync(join(temp, "units-"));
  for (const [name, text] of Object.entries(units)) writeFileSync(join(dir, name), text);
  try {
    const { stderr } = await run("systemd-analyze", ["verify", ...Object.keys(units).map((name) => join(dir, name))], {
      cwd: dir,
    });
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

/** The hardening wren.service must keep: option → its value (docs/operations.md, "Running as a service"). */
const HARDENING: Record<string, string> = {
  User: "wren",
  NoNewPrivileges: "yes",
  ProtectSystem: "strict",
  ProtectHome: "yes",
  PrivateTmp: "yes",
  PrivateDevices: "yes",
  ReadWritePaths: "/var/lib/wren",
  StateDirectory: "wren",
  RestrictAddressFamilies: "AF_UNIX AF_INET AF_INET6",
  CapabilityBoundingSet: "",
  SystemCallFilter: "@system-service",
  Restart: "on-failure",
  KillMode: "mixed",
  UMask: "0077",
};

/** The [Service] settings of a unit: name → every value it is given, in order. */
function settingsOf(unit: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of unit.split("\n")) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) settings.set(match[1]!, [...(settings.get(match[1]!) ?? []), match[2]!]);
  }
  return settings;
}

/** The hardening options missing from a unit, or given another value. */
function missingHardening(unit: string): string[] {
  const settings = settingsOf(unit);
  return Object.entries(HARDENING)
    .filter(([name, value]) => !(settings.get(name) ?? []).includes(value))
    .map(([name]) => name);
}

describe("examples/systemd", () => {
  it("systemd-analyze verify accepts every unit, with no warning", async () => {
    const result = await verify(Object.fromEntries(UNITS.map((name) => [name, installed(name)])));
    expect(result).toEqual({ code: 0, stderr: "" });
  });

  it("verify catches a broken unit: an ExecStart that does not exist, an unknown option", async () => {
    const missing = await verify({
      "wren.service": installed("wren.service").replace(`${ROOT}/node_modules/.bin/node`, "/nonexistent/node"),
    });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("/nonexistent/node");
    const unknown = await verify({
      "wren.service": installed("wren.service").replace("NoNewPrivileges=yes", "NoNewPrivilege=yes"),
    });
    expect(unknown.stderr).toContain("Unknown key 'NoNewPrivilege' in section [Service]");
  });

  it("wren.service keeps every hardening option, MemoryDenyWriteExecute off (V8's JIT), and the settings Wren reads", () => {
    const unit = installed("wren.service");
    expect(missingHardening(unit)).toEqual([]);
    const settings = settingsOf(unit);
    expect(settings.has("MemoryDenyWriteExecute")).toBe(false);
    expect(settings.get("ExecStart")).toEqual([`${ROOT}/node_modules/.bin/node ${ROOT}/bin/wren.js start`]);
    expect(settings.get("WorkingDirectory")).toEqual([ROOT]);
    expect(settings.get("Environment")).toEqual(
      expect.arrayContaining([
        "HOST=127.0.0.1",
        "PORT=8787",
        "WREN_PUBLIC_URL=https://stats.example.com",
        "WREN_DATA=/var/lib/wren/data",
      ]),
    );
    // The check itself fails when an option goes, or is weakened.
    for (const name of Object.keys(HARDENING)) {
      const without = unit
        .split("\n")
        .filter((line) => !line.startsWith(`${name}=`))
        .join("\n");
      expect(missingHardening(without), name).toEqual([name]);
    }
    expect(missingHardening(unit.replace("ProtectSystem=strict", "ProtectSystem=full"))).toEqual(["ProtectSystem"]);
  });

  it("the nightly backup runs `wren backup` as wren on the same data folder, with the same hardening", () => {
    const service = settingsOf(installed("wren-backup.service"));
    const main = settingsOf(installed("wren.service"));
    for (const name of [
      "User",
      "WorkingDirectory",
      "ProtectSystem",
      "ProtectHome",
      "NoNewPrivileges",
      "CapabilityBoundingSet",
      "SystemCallFilter",
    ]) {
      expect(service.get(name), name).toEqual(main.get(name));
    }
    expect(service.get("Environment")).toContain("WREN_DATA=/var/lib/wren/data");
    expect(service.get("ExecStart")![0]).toContain(`${ROOT}/bin/wren.js backup`);
    expect(settingsOf(installed("wren-backup.timer")).get("OnCalendar")).toEqual(["*-*-* 03:15:00"]);
  });
});
