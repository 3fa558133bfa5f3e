/**
 * examples/logrotate/wren, run by Debian's logrotate on a folder of its own (the log path and the
 * `su` user substituted): the log Wren appends to is copied aside and truncated in place, and a
 * writer that keeps it open with O_APPEND (as `npm start >> wren.log` does) goes on writing into
 * the same file, from its start.
 */
import { execFile } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../helpers/stack";

const run = promisify(execFile);
const temp = mkdtempSync(join(tmpdir(), "wren-logrotate-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("examples/logrotate/wren", () => {
  it("rotates the log by copy and truncation; the open writer keeps writing to it", async () => {
    const example = readFileSync(join(ROOT, "examples/logrotate/wren"), "utf8");
    expect(example).toContain("/var/log/wren/*.log {");
    expect(example).toContain("    su wren wren\n");
    const { username } = userInfo();
    const config = join(temp, "wren.conf");
    writeFileSync(
      config,
      example.replace("/var/log/wren/*.log {", `${temp}/*.log {`).replace("su wren wren", `su ${username} ${username}`),
      {
        mode: 0o644,
      },
    );

    const log = join(temp, "wren.log");
    const writer = openSync(log, "a");
    try {
      writeSync(writer, "wren: Wren is running at http://127.0.0.1:8787\n");
      const result = await run("logrotate", ["--state", join(temp, "state"), "--force", config]);
      expect(result.stderr).toBe("");
      expect(readFileSync(join(temp, "wren.log.1"), "utf8")).toBe("wren: Wren is running at http://127.0.0.1:8787\n");
      expect(statSync(log).size).toBe(0);
      writeSync(writer, "wren: SIGTERM received, stopping\n");
      expect(readFileSync(log, "utf8")).toBe("wren: SIGTERM received, stopping\n");
    } finally {
      closeSync(writer);
    }
  });
});
