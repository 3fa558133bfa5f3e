/**
 * The real CLI on a migrated data folder (no service running): `wren sites create` prints a
 * snippet for the URL the service serves on, from the same settings `npm start` reads (PORT,
 * HOST, WREN_PUBLIC_URL), and so does `wren hooks deployment`; `wren keys create --sites`
 * refuses a site that does not exist, naming it, through the domain rule the API applies
 * (worker/domain/apikeys.ts issueKey), and makes no key. A record that is not there is
 * `not_found` under --json.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadSettings } from "../../cli/settings";
import { tempDir, wren } from "./helpers";

const SECRET = "ab".repeat(32);
let dataDir: string;

const run = (args: string[], env: Record<string, string> = {}) => wren(args, dataDir, { WREN_SECRET: SECRET, ...env });

async function json<T>(args: string[], env: Record<string, string> = {}): Promise<T> {
  const result = await run([...args, "--json"], env);
  if (result.code !== 0) throw new Error(`wren ${args.join(" ")}: ${result.code} ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

beforeAll(async () => {
  dataDir = tempDir("records");
  const migrated = await run(["migrate"]);
  expect(migrated.code, migrated.stderr).toBe(0);
}, 120_000);

describe("wren sites create: the snippet's URL", () => {
  const snippet = (base: string, id: string) => `<script defer src="${base}/t.js" data-site="${id}"></script>`;

  it("follows PORT (and HOST) as npm start does", async () => {
    const env = { PORT: "9999" };
    const site = await json<{ id: string; snippet: string }>(
      ["sites", "create", "--name", "Port", "--domain", "port.example"],
      env,
    );
    expect(site.snippet).toBe(snippet("http://127.0.0.1:9999", site.id));
    expect(loadSettings(env).publicUrl).toBe("http://127.0.0.1:9999");
    // Listening on every address, browsers still need one: loopback, on the same port.
    const wild = await json<{ id: string; snippet: string }>(["sites", "create", "--name", "Wild", "--domain", "wild.example"], {
      HOST: "0.0.0.0",
      PORT: "9999",
    });
    expect(wild.snippet).toBe(snippet("http://127.0.0.1:9999", wild.id));
    const human = await run(["sites", "create", "--name", "Human", "--domain", "human.example"], env);
    expect(human.stdout).toMatch(
      /^Snippet: {3}<script defer src="http:\/\/127\.0\.0\.1:9999\/t\.js" data-site="site_[\w-]+"><\/script>$/m,
    );
  }, 120_000);

  it("is WREN_PUBLIC_URL when set, and so is the deployment webhook's", async () => {
    const env = { PORT: "9999", WREN_PUBLIC_URL: "https://stats.example.com/" };
    const site = await json<{ id: string; snippet: string }>(
      ["sites", "create", "--name", "Public", "--domain", "public.example"],
      env,
    );
    expect(site.snippet).toBe(snippet("https://stats.example.com", site.id));
    const hook = await json<{ url: string }>(["hooks", "deployment", site.id], env);
    expect(hook.url).toBe(`https://stats.example.com/hooks/deployments/${site.id}`);
  }, 120_000);
});

describe("wren keys create --sites", () => {
  it("refuses a site that does not exist, naming it, and makes no key", async () => {
    const shop = await json<{ id: string }>(["sites", "create", "--name", "Shop", "--domain", "shop.example"]);
    const before = await json<{ keys: unknown[] }>(["keys", "list"]);
    const refused = await run(["keys", "create", "--scopes", "read:reports", "--sites", `${shop.id},site_nope`]);
    expect(refused).toEqual({ code: 1, stdout: "", stderr: "wren: sites.1: no site site_nope\n" });
    const asJson = await run(["keys", "create", "--scopes", "read:reports", "--sites", "site_AAAAAAAAAAAAAAAA", "--json"]);
    expect([asJson.code, asJson.stdout]).toEqual([1, ""]);
    expect(JSON.parse(asJson.stderr)).toEqual({
      error: "sites.0: no site site_AAAAAAAAAAAAAAAA",
      code: "refused",
      exit_code: 1,
      field: "sites.0",
    });
    expect(await json<{ keys: unknown[] }>(["keys", "list"])).toEqual(before);
    // The site that exists is accepted.
    const made = await json<{ sites: string[] }>(["keys", "create", "--scopes", "read:reports", "--sites", shop.id]);
    expect(made.sites).toEqual([shop.id]);
  }, 120_000);
});

describe("wren keys create without its scopes", () => {
  const valid =
    "write:sites, write:events, read:reports, read:sites, read:sessions, write:goals, write:deployments, write:alerts, admin";

  it("names --scopes and lists the valid scopes, never the schema's words, and makes no key", async () => {
    const before = await json<{ keys: unknown[] }>(["keys", "list"]);
    expect(await run(["keys", "create"])).toEqual({
      code: 2,
      stdout: "",
      stderr: `wren: --scopes is required: scopes, comma-separated: ${valid} (see \`wren keys create --help\`)\n`,
    });
    for (const empty of ["", ","]) {
      expect(await run(["keys", "create", "--scopes", empty])).toEqual({
        code: 2,
        stdout: "",
        stderr: `wren: --scopes: no scope given; give one or more, comma-separated: ${valid}\n`,
      });
    }
    expect(await run(["keys", "create", "--scopes", "read:reports,read:everything"])).toEqual({
      code: 2,
      stdout: "",
      stderr: `wren: --scopes: unknown scope "read:everything"; give one or more, comma-separated: ${valid}\n`,
    });
    const asJson = await run(["keys", "create", "--json"]);
    expect(JSON.parse(asJson.stderr)).toEqual({
      error: `--scopes is required: scopes, comma-separated: ${valid} (see \`wren keys create --help\`)`,
      code: "usage",
      exit_code: 2,
    });
    expect(await json<{ keys: unknown[] }>(["keys", "list"])).toEqual(before);
  }, 120_000);
});

describe("a record that is not there", () => {
  it("is not_found under --json, with exit 1", async () => {
    for (const args of [
      ["token", "site_AAAAAAAAAAAAAAAA"],
      ["goals", "list", "--site", "site_AAAAAAAAAAAAAAAA"],
    ]) {
      const missing = await run([...args, "--json"]);
      expect([missing.code, missing.stdout], args.join(" ")).toEqual([1, ""]);
      expect(JSON.parse(missing.stderr)).toEqual({ error: "no site site_AAAAAAAAAAAAAAAA", code: "not_found", exit_code: 1 });
    }
    const key = await run(["keys", "revoke", "key_AAAAAAAAAAAAAAAA", "--json"]);
    expect(JSON.parse(key.stderr)).toEqual({
      error: "No active key key_AAAAAAAAAAAAAAAA.",
      code: "not_found",
      exit_code: 1,
      field: "id",
    });
  }, 120_000);
});
