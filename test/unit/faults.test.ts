/**
 * Which failures are the server's (lib/faults.ts): what answers 503 instead of 422 or 500, and
 * what the log may say. The errors are shaped as @libsql/client and drizzle really throw them
 * (a code on the client's error, wrapped as `cause` by drizzle), and as workerd words its own.
 */
import { describe, expect, it, vi } from "vitest";
import { describeError, errorResponse } from "../../worker/lib/errors";
import { DatabaseTimeout, lastStorageFault, noteStorageFault, serverFault } from "../../worker/lib/faults";

function clientError(code: string, message: string): Error {
  return Object.assign(new Error(message), { name: "LibsqlError", code });
}

function drizzleWrapped(cause: Error): Error {
  return new Error('Failed query: insert into "api_keys" ("hash") values (?)\nparams: 9f86d081884c7d659a2feaa0c55ad015', {
    cause,
  });
}

describe("serverFault", () => {
  it.each([
    ["SQLITE_FULL", "SQLITE_FULL: SQLite error: database or disk is full"],
    ["SQLITE_READONLY", "SQLITE_READONLY: attempt to write a readonly database"],
    ["SQLITE_IOERR", "SQLITE_IOERR: disk I/O error"],
    ["SQLITE_CANTOPEN", "SQLITE_CANTOPEN: unable to open database file"],
  ])("%s is a storage fault, also wrapped by drizzle", (code, message) => {
    expect(serverFault(drizzleWrapped(clientError(code, message)))).toMatchObject({ kind: "storage", code });
  });

  it("reads extended codes and bare messages as their primary storage fault", () => {
    expect(serverFault(clientError("SQLITE_IOERR_WRITE", "disk I/O error"))).toMatchObject({
      kind: "storage",
      code: "SQLITE_IOERR",
    });
    expect(serverFault(new Error("database or disk is full: SQLITE_FULL"))).toMatchObject({
      kind: "storage",
      code: "SQLITE_FULL",
    });
  });

  it("takes workerd's hidden Durable Object storage failure for a storage fault", () => {
    expect(serverFault(new Error("internal error; reference = gefpihcggnvrmrsiiehsanmd"))).toMatchObject({
      kind: "storage",
      code: "RUNTIME_STORAGE",
    });
  });

  it("takes deadlines, busy writers and lost connections for an unavailable database", () => {
    expect(serverFault(drizzleWrapped(new DatabaseTimeout(5000)))).toMatchObject({
      kind: "unavailable",
      code: "DATABASE_TIMEOUT",
    });
    expect(serverFault(clientError("SQLITE_BUSY", "database is locked"))).toMatchObject({ kind: "unavailable" });
    expect(serverFault(new TypeError("fetch failed"))).toMatchObject({ kind: "unavailable" });
    expect(
      serverFault(Object.assign(new Error("The operation was aborted due to timeout"), { name: "TimeoutError" })),
    ).toMatchObject({
      kind: "unavailable",
    });
  });

  it("leaves the client's faults and bugs alone", () => {
    expect(serverFault(drizzleWrapped(clientError("SQLITE_CONSTRAINT_FOREIGNKEY", "FOREIGN KEY constraint failed")))).toBeNull();
    expect(serverFault(new TypeError("Cannot read properties of undefined"))).toBeNull();
    expect(serverFault("not an error")).toBeNull();
  });
});

describe("errorResponse", () => {
  it("answers a storage fault 503 with a long Retry-After, remembers it for /healthz, and logs its cause once per interval", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const first = errorResponse(clientError("SQLITE_FULL", "database or disk is full"), "POST /api/v1/sites");
      errorResponse(clientError("SQLITE_FULL", "database or disk is full"), "POST /api/v1/sites");
      expect(first.status).toBe(503);
      expect(first.headers.get("retry-after")).toBe("30");
      expect(first.headers.get("content-type")).toBe("application/problem+json");
      expect(await first.json()).toMatchObject({ detail: "The server cannot write to its storage right now; retry later." });
      expect(lastStorageFault()).toMatchObject({ fault: { code: "SQLITE_FULL" } });
      expect(log.mock.calls.filter(([line]) => String(line).startsWith("storage fault: SQLITE_FULL"))).toEqual([
        [
          "storage fault: SQLITE_FULL: the disk holding the database is full (in POST /api/v1/sites); requests that write answer 503 until it is fixed",
        ],
      ]);
    } finally {
      log.mockRestore();
    }
  });

  it("logs a bug without the statement's parameters, and answers a 500 that names no internals", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const response = errorResponse(drizzleWrapped(new TypeError("boom")));
      expect(response.status).toBe(500);
      expect(await response.json()).toMatchObject({ detail: "An unexpected error occurred." });
      const logged = log.mock.calls.map((call) => call.join(" ")).join("\n");
      expect(logged).toContain('Failed query: insert into "api_keys" ("hash") values (?)');
      expect(logged).not.toContain("9f86d081884c7d659a2feaa0c55ad015");
      expect(logged).not.toContain("params:");
    } finally {
      log.mockRestore();
    }
  });

  it("describeError keeps names, codes and causes", () => {
    expect(describeError(drizzleWrapped(clientError("SQLITE_FULL", "database or disk is full")))).toBe(
      'Error: Failed query: insert into "api_keys" ("hash") values (?) (cause: LibsqlError [SQLITE_FULL]: database or disk is full)',
    );
  });
});

describe("noteStorageFault", () => {
  it("logs again for the same cause only after the interval", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      const fault = { kind: "storage" as const, code: "SQLITE_NOMEM", cause: "the database server is out of memory" };
      noteStorageFault(fault, "a", 1_000_000);
      noteStorageFault(fault, "b", 1_009_999);
      noteStorageFault(fault, "c", 1_010_000);
      expect(log.mock.calls.map(([line]) => /\(in (\w)\)/.exec(String(line))?.[1])).toEqual(["a", "c"]);
    } finally {
      log.mockRestore();
    }
  });
});
