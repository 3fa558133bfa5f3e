// The SQL reading the server does itself, because the engine binding exposes no parameter
// names, no prepare tail and no sqlite3_stmt_readonly(). Parameter numbering is checked against
// the engine's own binding.

import Database from "libsql";
import { afterAll, describe, expect, test } from "vitest";
import { analyzeSequence, analyzeSingle, numberParams } from "../../server/hrana/sql-analysis.js";
import { tokenize } from "../../server/hrana/sql-lexer.js";
import { bindArguments } from "../../server/hrana/statement-runner.js";

const db = new Database(":memory:");
db.defaultSafeIntegers(true);
afterAll(() => db.close());

describe("splitting", () => {
  test("semicolons inside strings, identifiers and comments do not split", () => {
    const statements = analyzeSequence(
      `SELECT 'a;b', "c;d", [e;f], \`g;h\`; -- comment; still comment
       /* block; comment */ SELECT 2;;  ;`,
      100,
    );
    expect(statements.map((s) => s.sql)).toEqual([`SELECT 'a;b', "c;d", [e;f], \`g;h\`;`, "SELECT 2;"]);
  });

  test("CREATE TRIGGER bodies stay in one statement", () => {
    const statements = analyzeSequence(
      `CREATE TABLE t (a); CREATE TEMP TABLE x (a);`.replace("CREATE TEMP TABLE x (a);", "") +
        `CREATE TRIGGER t_ai AFTER INSERT ON t BEGIN
           UPDATE t SET a = CASE WHEN new.a > 0 THEN 1 ELSE 2 END WHERE rowid = new.rowid;
           SELECT 1;
         END; SELECT 3`,
      100,
    );
    expect(statements).toHaveLength(3);
    expect(statements[1]!.sql.startsWith("CREATE TRIGGER")).toBe(true);
    expect(statements[1]!.sql.endsWith("END;")).toBe(true);
    expect(statements[2]!.sql).toBe("SELECT 3");
  });

  test("zero or several statements where one is needed", () => {
    expect(() => analyzeSingle("  ;; -- nothing")).toThrow("SQL string does not contain any statement");
    expect(() => analyzeSingle("SELECT 1; SELECT 2")).toThrow("SQL string contains more than one statement");
    expect(analyzeSingle("SELECT 1;  -- trailing").sql).toBe("SELECT 1;");
  });

  test("lexical errors are parse errors", () => {
    expect(() => analyzeSingle("SELECT 'open")).toThrow(`unrecognized token: "'open"`);
    expect(() => analyzeSingle("SELECT x'abc'")).toThrow("unrecognized token");
    expect(() => analyzeSingle("SELECT 1 ! 2")).toThrow(`unrecognized token: "!"`);
    expect(tokenize("SELECT 1 /* unterminated comment").map((t) => t.text)).toEqual(["SELECT", "1"]);
  });
});

describe("classification", () => {
  const kinds = (sql: string) => {
    const s = analyzeSingle(sql);
    return { kind: s.kind, beginMode: s.beginMode, isIud: s.isIud, isInsert: s.isInsert, readonly: s.readonly };
  };

  test("reads, writes and transaction control", () => {
    expect(kinds("SELECT 1")).toEqual({ kind: "read", beginMode: null, isIud: false, isInsert: false, readonly: true });
    expect(kinds("VALUES (1)")).toMatchObject({ kind: "read" });
    expect(kinds("WITH x AS (SELECT 1) SELECT * FROM x")).toMatchObject({ kind: "read" });
    expect(kinds("WITH x(a) AS (SELECT 1), y AS (VALUES (2)) INSERT INTO t SELECT a FROM x")).toMatchObject({
      kind: "write",
      isIud: true,
      isInsert: true,
    });
    expect(kinds("REPLACE INTO t VALUES (1)")).toMatchObject({ kind: "write", isInsert: true });
    expect(kinds("update t set a = 1")).toMatchObject({ kind: "write", isIud: true, isInsert: false });
    expect(kinds("DELETE FROM t")).toMatchObject({ kind: "write", isIud: true });
    expect(kinds("CREATE UNIQUE INDEX i ON t (a)")).toMatchObject({ kind: "write", isIud: false });
    expect(kinds("EXPLAIN QUERY PLAN DELETE FROM t")).toMatchObject({ kind: "read", readonly: true });
    expect(kinds("BEGIN")).toMatchObject({ kind: "begin", beginMode: "deferred", readonly: true });
    expect(kinds("BEGIN IMMEDIATE TRANSACTION")).toMatchObject({ kind: "begin", beginMode: "immediate" });
    expect(kinds("begin exclusive")).toMatchObject({ kind: "begin", beginMode: "exclusive" });
    expect(kinds("BEGIN TRANSACTION READONLY")).toMatchObject({ kind: "begin", beginMode: "readonly" });
    expect(kinds("begin readonly")).toMatchObject({ kind: "begin", beginMode: "readonly" });
    expect(kinds("END TRANSACTION")).toMatchObject({ kind: "commit" });
    expect(kinds("ROLLBACK TO SAVEPOINT s")).toMatchObject({ kind: "rollback_to" });
    expect(kinds("ROLLBACK")).toMatchObject({ kind: "rollback" });
  });

  test("pragmas follow sqld's list", () => {
    expect(kinds("PRAGMA table_info(t)")).toMatchObject({ kind: "read" });
    expect(kinds("PRAGMA main.user_version")).toMatchObject({ kind: "read" });
    expect(kinds("PRAGMA user_version = 3")).toMatchObject({ kind: "write" });
    expect(analyzeSingle("PRAGMA foreign_keys = OFF").changesConnectionState).toBe(true);
    for (const refused of [
      "PRAGMA journal_mode = DELETE",
      "PRAGMA synchronous = OFF",
      "PRAGMA wal_checkpoint",
      "PRAGMA optimize",
    ]) {
      expect(() => analyzeSingle(refused), refused).toThrow("unsupported statement");
    }
  });

  test("statements sqld refuses", () => {
    for (const refused of [
      "ATTACH 'x.db' AS x",
      "DETACH x",
      "VACUUM",
      "ANALYZE",
      "CREATE TEMP TABLE x (a)",
      "CREATE TABLE temp.x (a)",
      "42",
    ]) {
      expect(() => analyzeSingle(refused), refused).toThrow("unsupported statement");
    }
  });
});

describe("parameters", () => {
  // [sql, parameter names by index, what the engine returns when bound with 1, 2, 3, ...]
  const cases: Array<[string, Array<string | null>, unknown[]]> = [
    ["SELECT ?, ?, ?", [null, null, null], [1n, 2n, 3n]],
    ["SELECT ?2, ?, ?1", ["?1", "?2", null], [2n, 3n, 1n]],
    ["SELECT :a, @b, $c, :a, ?", [":a", "@b", "$c", null], [1n, 2n, 3n, 1n, 4n]],
    ["SELECT ?3, :x", [null, null, "?3", ":x"], [3n, 4n]],
    ["SELECT :a, ?1, :b", [":a", ":b"], [1n, 1n, 2n]],
    ["SELECT $a::b, $x(yz)", ["$a::b", "$x(yz)"], [1n, 2n]],
    ["SELECT '?', :a /* ? */, ? -- ?", [":a", null], ["?", 1n, 2n]],
  ];

  for (const [sql, names, row] of cases) {
    test(`numbers ${JSON.stringify(sql)} like SQLite`, () => {
      const table = numberParams(tokenize(sql));
      expect(table.count).toBe(names.length);
      expect(table.names.slice(1)).toEqual(names);
      const args = names.map((_, i) => BigInt(i + 1));
      expect(db.prepare(sql).raw(true).all(args)).toEqual([row]);
    });
  }

  test("bindArguments follows sqld: ?NNN is positional, names match with or without prefix", () => {
    const named = (sql: string, args: Record<string, bigint>) =>
      bindArguments(
        analyzeSingle(sql),
        [],
        Object.entries(args).map(([name, value]) => ({ name, value })),
      );
    expect(bindArguments(analyzeSingle("SELECT ?3, ?1"), [1n, 2n, 3n], [])).toEqual([1n, 2n, 3n]);
    expect(named("SELECT :b, :a, ?1", { a: 1n, ":b": 2n })).toEqual([2n, 1n]);
    expect(named("SELECT @x, $y", { x: 7n, $y: 8n })).toEqual([7n, 8n]);
    expect(bindArguments(analyzeSingle("EXPLAIN SELECT ?, ?"), [1n], [])).toEqual([1n, null]);
    expect(() => bindArguments(analyzeSingle("SELECT ?"), [], [])).toThrow("value for parameter 1 not found");
    expect(() => named("SELECT ?", { a: 1n })).toThrow("value for parameter 1 not found");
  });

  test("bound arrays reach the engine's parameter slots", () => {
    const statement = analyzeSingle("SELECT :b, :a, ?1, @c");
    const bound = bindArguments(
      statement,
      [],
      [
        { name: "a", value: 1n },
        { name: "b", value: 2n },
        { name: "@c", value: 3n },
      ],
    );
    expect(db.prepare(statement.sql).raw(true).all(bound)).toEqual([[2n, 1n, 2n, 3n]]);
  });
});
