/**
 * The api process's address (cli/api-socket.ts): a Unix socket in the data folder, nothing a
 * free-port race can take. A socket file a killed start left behind is removed; one that
 * answers is another Wren on the same folder, and the start is refused without touching it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { apiAddress } from "../../cli/api-socket";

const dataDir = () => mkdtempSync(join(tmpdir(), "wren-sock-"));

describe("the api process's address", () => {
  it("is a socket in the data folder", async () => {
    const dir = dataDir();
    expect(await apiAddress(dir)).toBe(`unix:${join(dir, "api.sock")}`);
  });

  it("removes a socket file a killed start left, which answers nobody", async () => {
    const dir = dataDir();
    const path = join(dir, "api.sock");
    // A process that dies by SIGKILL while listening leaves its socket file behind.
    const script = `require("net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`;
    try {
      execFileSync(process.execPath, ["-e", script]);
    } catch {
      // killed, as meant
    }
    expect(statSync(path).isSocket()).toBe(true);
    expect(await apiAddress(dir)).toBe(`unix:${path}`);
    expect(existsSync(path)).toBe(false);
  });

  it("refuses a start while another Wren answers on the folder's socket, and leaves that socket alone", async () => {
    const dir = dataDir();
    const path = join(dir, "api.sock");
    const running = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => running.listen(path, resolve));
    try {
      await expect(apiAddress(dir)).rejects.toThrow(`Another Wren is running on the data folder ${dir} (its api socket ${path} answers); stop it first`);
      expect(statSync(path).isSocket()).toBe(true);
    } finally {
      running.close();
    }
  });

  it("is a free loopback port when the folder is too deep for a socket path (107 bytes)", async () => {
    const deep = join(dataDir(), "d".repeat(100));
    expect(await apiAddress(deep)).toMatch(/^127\.0\.0\.1:\d+$/);
  });
});
