/**
 * Imports through the real stack (`wren start`, workerd, the embedded libSQL server): each of
 * the fixtures' exports uploaded as the body answers its summary with exact numbers, the same
 * file again is 200 unchanged and changes no row, the list is newest first, and a removal takes
 * the days with it. Every attack is refused with nothing written — the three tables' rows are
 * compared before and after: no key, a key without write:sites, a key of another site, a viewer's
 * or editor's cookie, a cookie write without CSRF or from a foreign origin, a body over
 * WREN_IMPORT_MAX_MB (declared, or streamed without a length), a malformed file, a zip bomb, an
 * unknown tool, a body of the wrong media type.
 */
import { readFileSync } from "node:fs";
import { once } from "node:events";
import { request as httpRequest } from "node:http";
import { join as joinPath } from "node:path";
import { crc32, createDeflateRaw } from "node:zlib";
import { strToU8, zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { peopleUrl } from "../../worker/lib/public-url";
import { FIXTURES_DIR, GOATCOUNTER_CSV, PLAUSIBLE_ZIP, UMAMI_CSV } from "../fixtures/imports/generate";
import type { Answer } from "../helpers/http";
import { browser, join, tokenOf, type Browser } from "../helpers/passkey";
import { apiFixture, type ApiFixture } from "./fixtures";

/** The bound this stack runs with: 2 MB, so an oversized body stays cheap to send. */
const MAX_MB = 2;
const MAX_BYTES = MAX_MB * 1024 * 1024;

let f: ApiFixture;
let site: { id: string };
let other: { id: string };

beforeAll(async () => {
  f = await apiFixture({ WREN_IMPORT_MAX_MB: String(MAX_MB) });
  site = await f.makeSite("imports.example", "Imported shop");
  other = await f.makeSite("other-imports.example");
}, 60_000);
afterAll(() => f?.close());

const fixture = (name: string) => readFileSync(joinPath(FIXTURES_DIR, name));
const TYPES = { plausible: "application/zip", umami: "text/csv", goatcounter: "text/csv" } as const;

/** Sends `body` as the upload of `from` to `siteId`, with the given credentials and headers. */
async function upload(
  siteId: string,
  from: string,
  body: Uint8Array | string,
  headers: Record<string, string>,
  name = "export",
): Promise<Answer> {
  const response = await fetch(`${f.stack.url}/api/v1/sites/${siteId}/imports?from=${from}&name=${encodeURIComponent(name)}`, {
    method: "POST",
    headers,
    body,
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

const asAdmin = (type: string) => ({ authorization: `Bearer ${f.stack.adminKey}`, "content-type": type });

/** Every row of the three import tables, whatever the site: an attack must leave them all as they were. */
async function importRows(): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of ["imports", "imported_days", "imported_cells"]) {
    const rs = await f.database().execute(`SELECT * FROM ${table} ORDER BY 1, 2, 3, 4`);
    out[table] = rs.rows.map((row) => ({ ...row }));
  }
  return out;
}

async function expectNothingWritten(attack: () => Promise<Answer>, status: number, field?: string): Promise<Answer> {
  const before = await importRows();
  const answer = await attack();
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  if (field) expect(answer.body.field).toBe(field);
  expect(await importRows()).toEqual(before);
  return answer;
}

describe("uploading each tool's export", () => {
  it("imports Plausible's zip: 201 with the summary's exact numbers, audited without the file", async () => {
    const answer = await upload(site.id, "plausible", fixture(PLAUSIBLE_ZIP), asAdmin(TYPES.plausible), "plausible.zip");
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toEqual({
      import: {
        id: expect.stringMatching(/^imp_[A-Za-z0-9_-]{16}$/),
        source: "plausible",
        file_name: "plausible.zip",
        status: "done",
        rows_read: 71,
        rows_refused: 2,
        days_imported: 3,
        first_day: "2025-03-01",
        last_day: "2025-03-03",
        refusals: {
          by_reason: { "custom events are not imported": 2 },
          first: [
            { file: "imported_custom_events_20250301_20250303.csv", line: 2, reason: "custom events are not imported" },
            { file: "imported_custom_events_20250301_20250303.csv", line: 3, reason: "custom events are not imported" },
          ],
        },
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        finished_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
      unchanged: false,
    });
    const days = await f.database().execute({
      sql: "SELECT day, visitors, pageviews, visits, bounces, visit_duration FROM imported_days WHERE site_id = ? ORDER BY day",
      args: [site.id],
    });
    expect(days.rows.map((row) => ({ ...row }))).toEqual([
      { day: "2025-03-01", visitors: 41, pageviews: 97, visits: 48, bounces: 18, visit_duration: 5230 },
      { day: "2025-03-02", visitors: 37, pageviews: 80, visits: 42, bounces: 15, visit_duration: 4410 },
      { day: "2025-03-03", visitors: 52, pageviews: 121, visits: 60, bounces: 22, visit_duration: 7315 },
    ]);
    const cells = await f
      .database()
      .execute({ sql: "SELECT count(*) AS n FROM imported_cells WHERE site_id = ?", args: [site.id] });
    expect(Number(cells.rows[0]!.n)).toBe(68);
    const audit = await f.database().execute({
      sql: "SELECT action, actor_kind, site_id, detail FROM audit_log WHERE target = ?",
      args: [answer.body.import.id],
    });
    expect(audit.rows.map((row) => ({ ...row }))).toEqual([
      {
        action: "import.create",
        actor_kind: "key",
        site_id: site.id,
        detail: JSON.stringify({ source: "plausible", file_name: "plausible.zip", days_imported: 3 }),
      },
    ]);
  });

  it("the same file again is 200 unchanged and changes no row, under any name", async () => {
    const before = await importRows();
    const first = (await f.admin("GET", `/api/v1/sites/${site.id}/imports`)).body.imports[0];
    const again = await upload(site.id, "plausible", fixture(PLAUSIBLE_ZIP), asAdmin(TYPES.plausible), "renamed.zip");
    expect(again.status, again.text).toBe(200);
    expect(again.body).toEqual({ import: first, unchanged: true });
    expect(await importRows()).toEqual(before);
    const audit = await f.database().execute({ sql: "SELECT count(*) AS n FROM audit_log WHERE target = ?", args: [first.id] });
    expect(Number(audit.rows[0]!.n)).toBe(1);
  });

  it("imports Umami's and GoatCounter's CSV, lists all three newest first, and removes one with its days", async () => {
    const umami = await upload(other.id, "umami", fixture(UMAMI_CSV), asAdmin(TYPES.umami), "website_event.csv");
    expect(umami.status, umami.text).toBe(201);
    expect(umami.body.import).toMatchObject({
      source: "umami",
      file_name: "website_event.csv",
      status: "done",
      rows_read: 21,
      rows_refused: 2,
      days_imported: 3,
      first_day: "2025-03-01",
      last_day: "2025-03-03",
    });
    expect(umami.body.import.refusals.by_reason).toEqual({ "custom events are not imported": 2 });
    const goat = await upload(site.id, "goatcounter", fixture(GOATCOUNTER_CSV), asAdmin(TYPES.goatcounter), "goat.csv");
    expect(goat.status, goat.text).toBe(201);
    expect(goat.body.import).toMatchObject({
      source: "goatcounter",
      status: "done",
      rows_read: 10,
      rows_refused: 2,
      days_imported: 2,
      first_day: "2025-03-01",
      last_day: "2025-03-02",
    });
    expect(goat.body.import.refusals.by_reason).toEqual({ bot: 1, "events are not imported": 1 });

    const listed = await f.admin("GET", `/api/v1/sites/${site.id}/imports`);
    expect(listed.status).toBe(200);
    expect(listed.body.imports.map((i: { source: string }) => i.source)).toEqual(["goatcounter", "plausible"]);
    // A reader may not list them: a summary's counts are the export's exact ones, never k-filtered.
    const reader = await f.makeKey(["read:reports", "read:sites", "read:sessions"], [site.id]);
    const refused = await reader.call("GET", `/api/v1/sites/${site.id}/imports`);
    expect([refused.status, refused.body.required_scope]).toEqual([403, "write:sites"]);
    const siteAdmin = await f.makeKey(["write:sites"], [site.id]);
    expect((await siteAdmin.call("GET", `/api/v1/sites/${site.id}/imports`)).body).toEqual(listed.body);
    expect((await siteAdmin.call("GET", `/api/v1/sites/${other.id}/imports`)).status).toBe(403);

    // Another site's import is not found through this one, and stays.
    const crossed = await expectNothingWritten(
      () => f.admin("DELETE", `/api/v1/sites/${site.id}/imports/${umami.body.import.id}`),
      404,
      "import_id",
    );
    expect(crossed.body.detail).toBe(`No import ${umami.body.import.id} on site ${site.id}.`);

    const removed = await f.admin("DELETE", `/api/v1/sites/${other.id}/imports/${umami.body.import.id}`);
    expect(removed.status, removed.text).toBe(204);
    const left = await f.database().execute({
      sql: "SELECT (SELECT count(*) FROM imported_days WHERE site_id = ?) AS days, (SELECT count(*) FROM imports WHERE site_id = ?) AS imports",
      args: [other.id, other.id],
    });
    expect({ ...left.rows[0] }).toEqual({ days: 0, imports: 0 });
    expect((await f.admin("GET", `/api/v1/sites/${other.id}/imports`)).body).toEqual({ imports: [] });
    const audit = await f
      .database()
      .execute({ sql: "SELECT action FROM audit_log WHERE target = ? ORDER BY at", args: [umami.body.import.id] });
    expect(audit.rows.map((row) => row.action)).toEqual(["import.create", "import.remove"]);
  });
});

describe("refusals, each with nothing written", () => {
  const csv = () => fixture(GOATCOUNTER_CSV);

  it("no key (401), a key without write:sites (403), a key of another site (403), an unknown site (404)", async () => {
    await expectNothingWritten(
      () => upload(other.id, "goatcounter", csv(), { "content-type": "text/csv" }),
      401,
      "authorization",
    );
    const reader = await f.makeKey(["read:reports", "read:sites"], [other.id]);
    const noScope = await expectNothingWritten(
      () => upload(other.id, "goatcounter", csv(), { authorization: `Bearer ${reader.key}`, "content-type": "text/csv" }),
      403,
      "authorization",
    );
    expect(noScope.body.required_scope).toBe("write:sites");
    const writer = await f.makeKey(["write:sites"], [site.id]);
    await expectNothingWritten(
      () => upload(other.id, "goatcounter", csv(), { authorization: `Bearer ${writer.key}`, "content-type": "text/csv" }),
      403,
      "id",
    );
    await expectNothingWritten(
      () => f.admin("DELETE", `/api/v1/sites/${other.id}/imports/imp_unknown000000000`),
      404,
      "import_id",
    );
    await expectNothingWritten(() => upload("site_unknown0000000", "goatcounter", csv(), asAdmin("text/csv")), 404, "id");
  });

  it("a viewer's or editor's cookie (403); an admin's cookie without the CSRF header or from another origin (403)", async () => {
    const person = async (role: string): Promise<Browser> => {
      const invited = await f.admin("POST", "/api/v1/people", { site: other.id, role });
      expect(invited.status, invited.text).toBe(201);
      const who = browser(f.stack.url);
      expect((await join(who, tokenOf(invited.body.link), `${role} of imports`)).status).toBe(201);
      return who;
    };
    const cookieHeaders = (who: Browser, extra: Record<string, string> = {}) => ({
      cookie: `wren_session=${who.cookie}`,
      origin: peopleUrl(f.stack.url),
      "x-wren-csrf": who.csrf!,
      "content-type": "text/csv",
      ...extra,
    });
    for (const role of ["viewer", "editor"]) {
      const who = await person(role);
      await expectNothingWritten(() => upload(other.id, "goatcounter", csv(), cookieHeaders(who)), 403, "authorization");
    }
    const admin = await person("admin");
    const noCsrf = cookieHeaders(admin);
    delete (noCsrf as Record<string, string>)["x-wren-csrf"];
    await expectNothingWritten(() => upload(other.id, "goatcounter", csv(), noCsrf), 403, "x-wren-csrf");
    await expectNothingWritten(
      () => upload(other.id, "goatcounter", csv(), cookieHeaders(admin, { origin: "https://evil.example" })),
      403,
      "origin",
    );
    // The same person, as the dashboard sends it: imported.
    const done = await upload(other.id, "goatcounter", csv(), cookieHeaders(admin), "goat.csv");
    expect(done.status, done.text).toBe(201);
    expect((await f.admin("DELETE", `/api/v1/sites/${other.id}/imports/${done.body.import.id}`)).status).toBe(204);
  }, 60_000);

  it("a body over WREN_IMPORT_MAX_MB: 413 naming the body, declared or streamed without a length", async () => {
    const oversized = new Uint8Array(MAX_BYTES + 1);
    const declared = await expectNothingWritten(
      () => upload(other.id, "goatcounter", oversized, asAdmin("text/csv")),
      413,
      "body",
    );
    expect(declared.body.detail).toBe(`The body is larger than ${MAX_BYTES} bytes.`);
    // Chunked: no length to refuse up front, so the api counts it as it arrives.
    const streamed = await expectNothingWritten(() => chunkedUpload(other.id, oversized), 413, "body");
    expect(streamed.body.detail).toBe(`The body is larger than ${MAX_BYTES} bytes.`);
    // Far past it (past twice the bound): the api stops reading, and the sender gets the 413 or,
    // when it is still writing, a reset; either way nothing is written and the service goes on.
    const before = await importRows();
    const farPast = await chunkedUpload(other.id, new Uint8Array(5 * MAX_BYTES)).catch((error: Error) => error);
    if (farPast instanceof Error) expect(farPast.message).toMatch(/ECONNRESET|EPIPE|socket hang up/);
    else expect([farPast.status, farPast.body.field]).toEqual([413, "body"]);
    expect(await importRows()).toEqual(before);
    expect((await f.admin("GET", `/api/v1/sites/${other.id}/imports`)).status).toBe(200);
    // Exactly the bound is read (and is then no GoatCounter export).
    const atBound = await expectNothingWritten(
      () => upload(other.id, "goatcounter", new Uint8Array(MAX_BYTES).fill(0x61), asAdmin("text/csv")),
      422,
      "body",
    );
    expect(atBound.body.detail).toMatch(/^Line 1 of export: /);
  });

  it("a malformed file: 422 naming the body, with the file and line", async () => {
    const lines = readFileSync(joinPath(FIXTURES_DIR, GOATCOUNTER_CSV), "utf8").split("\n");
    // The fourth line's Event is neither true nor false.
    lines[3] = lines[3]!.replace(",false,,", ",maybe,,");
    const answer = await expectNothingWritten(
      () => upload(other.id, "goatcounter", lines.join("\n"), asAdmin("text/csv"), "gc.csv"),
      422,
      "body",
    );
    expect(answer.body.detail).toBe('Line 4 of gc.csv: Event: "maybe" is not true or false');
    const notZip = await expectNothingWritten(
      () => upload(other.id, "plausible", "date,visitors\n", asAdmin("application/zip"), "p.zip"),
      422,
      "body",
    );
    expect(notZip.body.detail).toMatch(/^Line 1 of p\.zip: not a zip file/);
  });

  it("a zip bomb: a zip of 1 MB that unpacks past 1 GiB is refused before it is inflated", async () => {
    const bomb = await zeroZip(
      ["imported_visitors_20250301_20250303.csv", "imported_pages_20250301_20250303.csv"],
      550 * 1024 * 1024,
    );
    expect(bomb.length).toBeLessThan(MAX_BYTES);
    const answer = await expectNothingWritten(
      () => upload(other.id, "plausible", bomb, asAdmin("application/zip"), "bomb.zip"),
      422,
      "body",
    );
    expect(answer.body.detail).toBe("Line 1 of bomb.zip: the zip unpacks to more than 1 GiB");
  }, 60_000);

  it("an unknown tool (422 naming `from`), a body of another media type (415), an empty body (422)", async () => {
    const unknown = await expectNothingWritten(() => upload(other.id, "matomo", csv(), asAdmin("text/csv")), 422, "from");
    expect(unknown.body.detail).toBe("from: must be one of plausible, umami, goatcounter");
    await expectNothingWritten(() => upload(other.id, "goatcounter", csv(), asAdmin("application/json")), 415, "content-type");
    await expectNothingWritten(() => upload(other.id, "goatcounter", "", asAdmin("text/csv")), 422, "body");
    const folder = await expectNothingWritten(
      () => upload(other.id, "goatcounter", csv(), asAdmin("text/csv"), "../x.csv"),
      400,
      "name",
    );
    expect(folder.body.detail).toBe("name: must be a file name without a folder");
    const zip = zipSync({ "notes.txt": strToU8("no export here") });
    const noVisitors = await expectNothingWritten(
      () => upload(other.id, "plausible", zip, asAdmin("application/zip")),
      422,
      "body",
    );
    expect(noVisitors.body.detail).toMatch(/imported_visitors/);
  });
});

/**
 * POSTs `body` with `Transfer-Encoding: chunked` (no Content-Length), as a streaming client
 * would, and stops sending once the answer is in: a server that refuses midway stops reading.
 */
function chunkedUpload(siteId: string, body: Uint8Array): Promise<Answer> {
  const url = new URL(f.stack.url);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: "POST",
        path: `/api/v1/sites/${siteId}/imports?from=goatcounter`,
        headers: { authorization: `Bearer ${f.stack.adminKey}`, "content-type": "text/csv", "transfer-encoding": "chunked" },
      },
      (res) => {
        answered = true;
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: new Headers(res.headers as Record<string, string>),
            body: JSON.parse(text),
            text,
          }),
        );
      },
    );
    // A write after the server closed its side fails (EPIPE): expected once it has answered.
    req.on("error", (error) => answered || reject(error));
    const closed = new Promise((done) => req.once("close", done));
    void (async () => {
      for (let offset = 0; offset < body.length && !answered && !req.destroyed; offset += 64 * 1024) {
        if (!req.write(body.subarray(offset, offset + 64 * 1024))) await Promise.race([once(req, "drain"), closed]);
      }
      if (!req.destroyed) req.end();
    })().catch(() => undefined);
  });
}

/**
 * A real zip (honest sizes and CRCs) whose entries are `size` zero bytes each, deflated as it
 * goes so the test never holds them: about a thousandth of their size.
 */
async function zeroZip(names: string[], size: number): Promise<Uint8Array> {
  const chunk = Buffer.alloc(1024 * 1024);
  let crc = 0;
  for (let done = 0; done < size; done += chunk.length) crc = crc32(chunk.subarray(0, Math.min(chunk.length, size - done)), crc);
  const deflate = createDeflateRaw({ level: 9 });
  const parts: Buffer[] = [];
  deflate.on("data", (data: Buffer) => parts.push(data));
  const finished = new Promise((resolve) => deflate.on("end", resolve));
  for (let done = 0; done < size; done += chunk.length) {
    if (!deflate.write(chunk.subarray(0, Math.min(chunk.length, size - done))))
      await new Promise((r) => deflate.once("drain", r));
  }
  deflate.end();
  await finished;
  const data = Buffer.concat(parts);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const name of names) {
    const fileName = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(names.length, 8);
  end.writeUInt16LE(names.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}
