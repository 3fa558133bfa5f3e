// The embedded server as an attacker meets it: SQL that reaches the file system or loads code,
// and requests that a web page in the operator's browser could make. Each attack is refused
// and leaves nothing behind.

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ALLOWED_FUNCTIONS } from "../../server/hrana/sql-policy.js";
import { rawRequest } from "../helpers/http.js";
import { pipeline, postPipeline, rowsOf, sql, startTestServer, text, type TestServer } from "./helpers.js";

let server: TestServer;
let secretFile: string;
let outside: string;

beforeAll(async () => {
  server = await startTestServer();
  outside = mkdtempSync(join(tmpdir(), "wren-outside-"));
  secretFile = join(outside, "secret.key");
  writeFileSync(secretFile, "top-secret-value\n", { mode: 0o600 });
  await pipeline(server.url, [sql("CREATE TABLE t (a)")]);
});
afterAll(async () => {
  await server.dispose();
});

/** The error of the first result of a one-statement pipeline (the stream stays usable). */
async function refusal(statement: string, args?: unknown[]): Promise<{ code: string; message: string }> {
  const res = await postPipeline(server.url, { requests: [sql(statement, args)] });
  expect(res.status).toBe(200);
  const result = res.json.results[0];
  expect(result.type).toBe("error");
  return result.error;
}

async function rowCount(): Promise<bigint> {
  const [result] = (await pipeline(server.url, [sql("SELECT count(*) FROM t")])).results;
  return rowsOf(result)[0]![0] as bigint;
}

describe("SQL that touches files or loads code is refused before it runs", () => {
  test("readfile cannot read a file, in any spelling", async () => {
    for (const statement of [
      `SELECT CAST(readfile('${secretFile}') AS TEXT)`,
      `SELECT CAST(READFILE('${secretFile}') AS TEXT)`,
      `SELECT "readfile"('${secretFile}')`,
      `SELECT [readfile]('${secretFile}')`,
      `SELECT \`readfile\`('${secretFile}')`,
      `SELECT readfile /* a comment */ ('${secretFile}')`,
      `SELECT readfile\n('${secretFile}')`,
      `SELECT length(readfile(?))`,
    ]) {
      const error = await refusal(statement, statement.includes("?") ? [text(secretFile)] : undefined);
      expect(error).toEqual({ code: "SQLITE_AUTH", message: expect.stringContaining("not authorized to use function: readfile") });
      expect(JSON.stringify(error)).not.toContain("top-secret-value");
    }
  });

  test("writefile creates no file, and fsdir lists no folder (with or without parentheses)", async () => {
    const target = join(outside, "planted.sh");
    expect((await refusal(`SELECT writefile('${target}', 'echo pwned', 493)`)).code).toBe("SQLITE_AUTH");
    expect(existsSync(target)).toBe(false);
    expect((await refusal(`SELECT name FROM fsdir('${outside}')`)).message).toContain("module: fsdir");
    expect((await refusal(`SELECT name FROM fsdir WHERE name = '${outside}'`)).message).toContain("module: fsdir");
    expect((await refusal(`SELECT lsmode(493)`)).code).toBe("SQLITE_AUTH");
  });

  test("load_extension, sha3_query (SQL inside SQL), cipher configuration and raw pages are refused", async () => {
    expect((await refusal(`SELECT load_extension('${join(outside, "evil.so")}')`)).code).toBe("SQLITE_AUTH");
    expect((await refusal(`SELECT sha3_query('SELECT writefile(''${join(outside, "x")}'', 1)')`)).code).toBe("SQLITE_AUTH");
    expect(existsSync(join(outside, "x"))).toBe(false);
    expect((await refusal(`SELECT sqlite3mc_config('cipher')`)).code).toBe("SQLITE_AUTH");
    expect((await refusal(`SELECT data FROM sqlite_dbpage WHERE pgno = 1`)).code).toBe("SQLITE_AUTH");
    expect((await refusal(`SELECT fts3_tokenizer('simple')`)).code).toBe("SQLITE_AUTH");
  });

  test("a stored view or trigger cannot smuggle one in for later", async () => {
    expect((await refusal(`CREATE VIEW leak AS SELECT readfile('${secretFile}') AS v`)).code).toBe("SQLITE_AUTH");
    const trigger = `CREATE TRIGGER plant AFTER INSERT ON t BEGIN SELECT writefile('${join(outside, "t")}', 'x'); END`;
    expect((await refusal(trigger)).code).toBe("SQLITE_AUTH");
    const [schema] = (await pipeline(server.url, [sql("SELECT count(*) FROM sqlite_schema WHERE name IN ('leak', 'plant')")])).results;
    expect(rowsOf(schema)).toEqual([[0n]]);
  });

  test("a batch or a sequence with one refused statement runs none of its statements", async () => {
    const before = await rowCount();
    const batch = await postPipeline(server.url, {
      requests: [{ type: "batch", batch: { steps: [{ stmt: { sql: "INSERT INTO t VALUES (1)" } }, { stmt: { sql: `SELECT readfile('${secretFile}')` } }] } }],
    });
    expect(batch.json.results[0]).toMatchObject({ type: "error", error: { code: "SQLITE_AUTH" } });
    const sequence = await postPipeline(server.url, {
      requests: [{ type: "sequence", sql: `INSERT INTO t VALUES (2); SELECT writefile('${join(outside, "s")}', 'x');` }],
    });
    expect(sequence.json.results[0]).toMatchObject({ type: "error", error: { code: "SQLITE_AUTH" } });
    expect(await rowCount()).toBe(before);
    expect(existsSync(join(outside, "s"))).toBe(false);
  });

  test("pragma tables are readable only for the pragmas a client may read", async () => {
    const [list] = (await pipeline(server.url, [sql("SELECT count(*) > 0 FROM pragma_table_list")])).results;
    expect(rowsOf(list)).toEqual([[1n]]);
    expect((await refusal("SELECT * FROM pragma_wal_checkpoint")).message).toContain("module: pragma_wal_checkpoint");
  });

  test("deny by default: every function the engine has is either on sqld's list or refused", async () => {
    const [listed] = (await pipeline(server.url, [sql("SELECT DISTINCT name FROM pragma_function_list ORDER BY name")])).results;
    const names = rowsOf(listed).map((row) => String(row[0]));
    const extras = names.filter((name) => !ALLOWED_FUNCTIONS.has(name.toUpperCase()) && /^[a-z_][a-z0-9_]*$/i.test(name));
    // The engine does carry extras (fileio, extension-functions, ciphers): the check is not vacuous.
    expect(extras).toEqual(expect.arrayContaining(["readfile", "writefile", "load_extension", "sha3_query"]));
    for (const name of extras) {
      expect(await refusal(`SELECT ${name}(1)`), name).toMatchObject({ code: "SQLITE_AUTH" });
    }
  });

  test("what Wren and sqld clients use still works", async () => {
    const [result] = (
      await pipeline(server.url, [
        sql(
          "SELECT count(*), json_extract('{\"a\":2}', '$.a'), strftime('%Y', '2026-01-02'), coalesce(NULL, 3), " +
            "(SELECT count(*) FROM json_each('[1,2]')), row_number() OVER ()",
        ),
      ])
    ).results;
    expect(rowsOf(result)).toEqual([[1n, 2n, "2026", 3n, 2n, 1n]]);
    // A column that merely shares a refused function's name is fine.
    await pipeline(server.url, [sql("CREATE TABLE named (mode TEXT, edit TEXT)"), sql("INSERT INTO named (mode, edit) VALUES ('a', 'b')")]);
  });
});

/** A POST with headers a fetch() client may not set (Host); status and body. */
async function raw(path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  const { status, body: text } = await rawRequest(server.url, { method: "POST", path, headers, body });
  return { status, body: text };
}

const insert = (value: number) => JSON.stringify({ requests: [sql(`INSERT INTO t VALUES (${value})`)] });

describe("requests a browser could send are refused, and write nothing", () => {
  test("a page's blind text/plain POST (any Origin, even none)", async () => {
    const before = await rowCount();
    const withOrigin = await raw("/v2/pipeline", { "content-type": "text/plain", origin: "http://evil.example" }, insert(7));
    expect(withOrigin.status).toBe(403);
    const plain = await raw("/v2/pipeline", { "content-type": "text/plain" }, insert(7));
    expect(plain).toEqual({ status: 415, body: JSON.stringify({ error: "Unsupported Media Type: `send the pipeline as application/json`" }) });
    const form = await raw("/v2/pipeline", { "content-type": "application/x-www-form-urlencoded" }, insert(7));
    expect(form.status).toBe(415);
    const none = await raw("/v2/pipeline", {}, insert(7));
    expect(none.status).toBe(415);
    expect(await rowCount()).toBe(before);
  });

  test("an Origin or Sec-Fetch-Site header, whatever its value", async () => {
    const before = await rowCount();
    const browserHeaders: Record<string, string>[] = [{ origin: "null" }, { origin: server.url }, { "sec-fetch-site": "same-origin" }, { "sec-fetch-site": "cross-site" }];
    for (const headers of browserHeaders) {
      const answer = await raw("/v2/pipeline", { "content-type": "application/json", ...headers }, insert(8));
      expect(answer.status, JSON.stringify(headers)).toBe(403);
    }
    expect(await rowCount()).toBe(before);
  });

  test("a Host that is not the listening address (DNS rebinding)", async () => {
    const before = await rowCount();
    const port = new URL(server.url).port;
    for (const host of [`evil.example:${port}`, `127.0.0.1.nip.example:${port}`, `127.0.0.1:${Number(port) + 1}`, "127.0.0.1", "a b"]) {
      const answer = await raw("/v2/pipeline", { "content-type": "application/json", host }, insert(9));
      expect(answer.status, host).toBe(403);
    }
    expect(await rowCount()).toBe(before);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`]) {
      const answer = await raw("/v2/pipeline", { "content-type": "application/json", host }, JSON.stringify({ requests: [sql("SELECT 1")] }));
      expect(answer.status, host).toBe(200);
    }
  });

  test("a name the operator allowed is accepted; others still are not", async () => {
    const named = await startTestServer({ allowedHosts: ["db.internal"] });
    try {
      const port = new URL(named.url).port;
      const ask = async (host: string) =>
        (
          await rawRequest(named.url, {
            method: "POST",
            path: "/v2/pipeline",
            headers: { host, "content-type": "application/json" },
            body: JSON.stringify({ requests: [sql("SELECT 1")] }),
          })
        ).status;
      expect(await ask(`db.internal:${port}`)).toBe(200);
      expect(await ask(`evil.example:${port}`)).toBe(403);
    } finally {
      await named.dispose();
    }
  });
});

test("the secret file is untouched by all of the above", () => {
  expect(readFileSync(secretFile, "utf8")).toBe("top-secret-value\n");
});
