// Authentication, binding, durability across a restart and graceful shutdown.

import { createClient } from "@libsql/client";
import Database from "libsql";
import { existsSync, statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startHranaServer } from "../../server/hrana/index.js";
import { pipeline, postPipeline, rowsOf, sql, startTestServer, type TestServer } from "./helpers.js";

describe("bearer token", () => {
  let server: TestServer;
  const token = "s3cret-token";
  beforeAll(async () => {
    server = await startTestServer({ authToken: token });
  });
  afterAll(async () => {
    await server.dispose();
  });

  test("requests without the right token get 401 with sqld's body", async () => {
    const body = { requests: [sql("SELECT 1")] };
    const missing = await postPipeline(server.url, body);
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({ error: "Unauthorized: `Expected authorization header but none given`" });
    const wrong = await postPipeline(server.url, body, { authorization: `Bearer ${token}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: "Unauthorized: `Authentication failed`" });
    const basic = await postPipeline(server.url, body, { authorization: `Basic ${token}` });
    expect(basic.status).toBe(401);
    expect(basic.json.error).toContain("authentication scheme");
    expect((await fetch(`${server.url}/v2`)).status).toBe(401);
    // As on sqld, the health probe needs no token and says nothing but "up".
    const health = await fetch(`${server.url}/health`);
    expect({ status: health.status, body: await health.text() }).toEqual({ status: 200, body: "" });
  });

  test("the right token is accepted, by raw HTTP and by the client", async () => {
    const ok = await postPipeline(server.url, { requests: [sql("SELECT 1")] }, { authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(rowsOf(ok.json.results[0])).toEqual([[1n]]);
    const c = createClient({ url: server.url, authToken: token });
    expect((await c.execute("SELECT 2")).rows[0]![0]).toBe(2);
    c.close();
    const anonymous = createClient({ url: server.url });
    await expect(anonymous.execute("SELECT 3")).rejects.toMatchObject({ code: "SERVER_ERROR" });
    anonymous.close();
  });

  test("LIBSQL_AUTH_TOKEN is used when no token is passed", async () => {
    const previous = process.env["LIBSQL_AUTH_TOKEN"];
    process.env["LIBSQL_AUTH_TOKEN"] = "from-env";
    try {
      const envServer = await startHranaServer({ file: `${server.dir}/env.db` });
      try {
        expect((await postPipeline(envServer.url, { requests: [] })).status).toBe(401);
        expect((await postPipeline(envServer.url, { requests: [] }, { authorization: "Bearer from-env" })).status).toBe(200);
      } finally {
        await envServer.close();
      }
    } finally {
      if (previous === undefined) delete process.env["LIBSQL_AUTH_TOKEN"];
      else process.env["LIBSQL_AUTH_TOKEN"] = previous;
    }
  });
});

describe("binding", () => {
  test("binds 127.0.0.1 by default", async () => {
    const server = await startTestServer();
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    } finally {
      await server.dispose();
    }
  });

  test("refuses an in-memory database", async () => {
    await expect(startHranaServer({ file: ":memory:" })).rejects.toThrow("needs a database file");
  });
});

describe("durability and shutdown", () => {
  test("a committed write is in the file after close, and the WAL is checkpointed", async () => {
    const server = await startTestServer();
    await pipeline(server.url, [sql("CREATE TABLE durable (a TEXT)"), sql("INSERT INTO durable VALUES ('kept')")]);
    await server.close();

    // The WAL was moved into the database file and truncated.
    const wal = `${server.file}-wal`;
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
    const db = new Database(server.file);
    expect(db.prepare("SELECT a FROM durable").raw(true).all([])).toEqual([["kept"]]);
    expect(db.prepare("PRAGMA journal_mode").raw(true).all([])).toEqual([["wal"]]);
    db.close();

    // Reopening the same file serves the same data.
    const reopened = await startHranaServer({ file: server.file, authToken: "" });
    const body = await pipeline(reopened.url, [sql("SELECT a FROM durable")]);
    expect(rowsOf(body.results[0])).toEqual([["kept"]]);
    await reopened.close();
    await server.dispose();
  });

  test("close rolls back open transactions, and stops answering", async () => {
    const server = await startTestServer();
    await pipeline(server.url, [sql("CREATE TABLE unfinished (a)")]);
    await pipeline(server.url, [sql("BEGIN IMMEDIATE"), sql("INSERT INTO unfinished VALUES (1)")]);
    await server.close();
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
    const db = new Database(server.file);
    expect(db.prepare("SELECT count(*) FROM unfinished").raw(true).all([])).toEqual([[0]]);
    db.close();
    await server.dispose();
  });

  test("close lets a request in flight finish first", async () => {
    const server = await startTestServer();
    await pipeline(server.url, [sql("CREATE TABLE in_flight (a)")]);
    // An idle stream holds the writer; a second request queues behind it.
    await pipeline(server.url, [sql("BEGIN IMMEDIATE"), sql("INSERT INTO in_flight VALUES ('abandoned')")]);
    const queued = postPipeline(server.url, { requests: [sql("INSERT INTO in_flight VALUES ('queued')")] });
    await new Promise((r) => setTimeout(r, 50));
    await server.close();
    // Shutdown rolled the idle transaction back, which let the queued write through.
    const res = await queued;
    expect(res.status).toBe(200);
    expect(res.json.results[0].type).toBe("ok");
    const db = new Database(server.file);
    expect(db.prepare("SELECT a FROM in_flight").raw(true).all([])).toEqual([["queued"]]);
    db.close();
    await server.dispose();
  });
});

describe("engine isolation", () => {
  test("a result that makes the binding abort kills only the engine process, which restarts", async () => {
    const server = await startTestServer();
    try {
      await pipeline(server.url, [sql("CREATE TABLE survivors (a TEXT)"), sql("INSERT INTO survivors VALUES ('kept')")]);
      const open = await pipeline(server.url, [sql("SELECT 1")]);
      // TEXT that is not valid UTF-8 makes the libsql binding panic and abort its process.
      await expect(postPipeline(server.url, { requests: [sql("SELECT CAST(x'ff' AS TEXT)")] })).rejects.toThrow();
      // Same port, committed data intact; streams of the old process are gone, as after a restart.
      const body = await pipeline(server.url, [sql("SELECT a FROM survivors")]);
      expect(rowsOf(body.results[0])).toEqual([["kept"]]);
      const stale = await postPipeline(server.url, { baton: open.baton, requests: [] });
      expect(stale.text).toBe("Received an invalid baton");
    } finally {
      await server.dispose();
    }
  });

  test("isolate: false serves from this process", async () => {
    const server = await startTestServer({ isolate: false });
    try {
      await pipeline(server.url, [sql("CREATE TABLE here (a)"), sql("INSERT INTO here VALUES (1)")]);
      expect(rowsOf((await pipeline(server.url, [sql("SELECT a FROM here")])).results[0])).toEqual([[1n]]);
      await server.close();
      const db = new Database(server.file);
      expect(db.prepare("SELECT count(*) FROM here").raw(true).all([])).toEqual([[1]]);
      db.close();
    } finally {
      await server.dispose();
    }
  });
});
