/**
 * The CLI prints the URL the running service serves on, from the same settings `npm start` read:
 * `wren start` records its public URL in the data folder, so `wren sites create` from another
 * shell, without the service's PORT, still prints a snippet for that port (not the default
 * :8787); a setting given to the command itself still wins.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStack, type Stack } from "../helpers/stack";
import { wren } from "./helpers";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 90_000);
afterAll(() => stack?.stop());

describe("the URL the CLI prints", () => {
  it("is the running service's when the command is given no PORT, HOST or WREN_PUBLIC_URL", async () => {
    expect(stack.port).not.toBe(8787);
    const created = await wren(["sites", "create", "--name", "Shop", "--domain", "shop.example", "--json"], stack.dataDir);
    expect(created.code, created.stderr).toBe(0);
    const site = JSON.parse(created.stdout) as { id: string; snippet: string };
    expect(site.snippet).toBe(`<script defer src="http://127.0.0.1:${stack.port}/t.js" data-site="${site.id}"></script>`);

    const hook = await wren(["hooks", "deployment", site.id, "--json"], stack.dataDir);
    expect(hook.code, hook.stderr).toBe(0);
    expect(JSON.parse(hook.stdout).url).toBe(`http://127.0.0.1:${stack.port}/hooks/deployments/${site.id}`);
  });

  it("is the command's own when it is given one", async () => {
    const created = await wren(["sites", "create", "--name", "Cdn", "--domain", "cdn.example", "--json"], stack.dataDir, {
      WREN_PUBLIC_URL: "https://stats.example.com",
    });
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).snippet).toContain('src="https://stats.example.com/t.js"');
  });
});
