/**
 * Strict decoding of a Hrana-over-HTTP v2 pipeline request body (docs/HTTP_V2_SPEC.md in
 * tursodatabase/libsql) into typed requests. Field names, optionality and the rejection of
 * wrong types follow sqld's serde definitions (libsql-hrana/src/proto.rs); like serde, unknown
 * fields are ignored. Everything the engine binding cannot take is stopped here.
 */

import { ProtocolError } from "./errors.js";
import { type SqlValue, decodeValue, hasLoneSurrogate } from "./values.js";

export interface Stmt {
  sql: string | undefined;
  sqlId: number | undefined;
  args: SqlValue[];
  namedArgs: { name: string; value: SqlValue }[];
  wantRows: boolean;
}

export type BatchCond =
  | { type: "ok"; step: number }
  | { type: "error"; step: number }
  | { type: "not"; cond: BatchCond }
  | { type: "and"; conds: BatchCond[] }
  | { type: "or"; conds: BatchCond[] }
  | { type: "is_autocommit" };

export interface BatchStep {
  condition: BatchCond | undefined;
  stmt: Stmt;
}

export type StreamRequest =
  | { type: "close" }
  | { type: "execute"; stmt: Stmt }
  | { type: "batch"; steps: BatchStep[] }
  | { type: "sequence"; sql: string | undefined; sqlId: number | undefined }
  | { type: "describe"; sql: string | undefined; sqlId: number | undefined }
  | { type: "store_sql"; sqlId: number; sql: string }
  | { type: "close_sql"; sqlId: number }
  | { type: "get_autocommit" };

export interface PipelineRequest {
  baton: string | null;
  requests: StreamRequest[];
}

export interface ProtocolLimits {
  maxRequestsPerPipeline: number;
  maxStepsPerBatch: number;
  maxArgsPerStatement: number;
  maxConditionDepth: number;
}

type Json = Record<string, unknown>;

function fail(path: string, problem: string): never {
  throw new ProtocolError(`Cannot deserialize client message from JSON: ${path}: ${problem}`);
}

function object(raw: unknown, path: string): Json {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) fail(path, "expected an object");
  return raw as Json;
}

function array(raw: unknown, path: string, max: number): unknown[] {
  if (!Array.isArray(raw)) fail(path, "expected an array");
  if (raw.length > max) fail(path, `too many elements (${raw.length} > ${max})`);
  return raw;
}

function optionalString(raw: unknown, path: string): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "string") fail(path, "expected a string or null");
  if (hasLoneSurrogate(raw)) fail(path, "string contains a lone UTF-16 surrogate");
  return raw;
}

function requiredString(raw: unknown, path: string): string {
  if (typeof raw !== "string") fail(path, "expected a string");
  if (hasLoneSurrogate(raw)) fail(path, "string contains a lone UTF-16 surrogate");
  return raw;
}

function int32(raw: unknown, path: string): number {
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < -(2 ** 31) || raw > 2 ** 31 - 1) {
    fail(path, "expected a 32-bit integer");
  }
  return raw;
}

function optionalInt32(raw: unknown, path: string): number | undefined {
  return raw === undefined || raw === null ? undefined : int32(raw, path);
}

function uint32(raw: unknown, path: string): number {
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 0 || raw > 2 ** 32 - 1) {
    fail(path, "expected an unsigned 32-bit integer");
  }
  return raw;
}

function value(raw: unknown, path: string): SqlValue {
  try {
    return decodeValue(raw, path);
  } catch (err) {
    if (err instanceof ProtocolError) throw new ProtocolError(`Cannot deserialize client message from JSON: ${err.message}`);
    throw err;
  }
}

/** `sql` xor `sql_id`, as sqld's proto_sql_to_sql() demands. */
function sqlOrSqlId(obj: Json, path: string): { sql: string | undefined; sqlId: number | undefined } {
  const sql = optionalString(obj["sql"], `${path}.sql`);
  const sqlId = optionalInt32(obj["sql_id"], `${path}.sql_id`);
  if (sql !== undefined && sqlId !== undefined) {
    throw new ProtocolError("Either `sql` or `sql_id` are required, but not both");
  }
  if (sql === undefined && sqlId === undefined) throw new ProtocolError("Either `sql` or `sql_id` are required");
  return { sql, sqlId };
}

function stmt(raw: unknown, path: string, limits: ProtocolLimits): Stmt {
  const obj = object(raw, path);
  const { sql, sqlId } = sqlOrSqlId(obj, path);
  const args =
    obj["args"] === undefined
      ? []
      : array(obj["args"], `${path}.args`, limits.maxArgsPerStatement).map((a, i) => value(a, `${path}.args[${i}]`));
  const namedArgs =
    obj["named_args"] === undefined
      ? []
      : array(obj["named_args"], `${path}.named_args`, limits.maxArgsPerStatement).map((a, i) => {
          const argPath = `${path}.named_args[${i}]`;
          const arg = object(a, argPath);
          return { name: requiredString(arg["name"], `${argPath}.name`), value: value(arg["value"], `${argPath}.value`) };
        });
  const rawWantRows = obj["want_rows"];
  if (rawWantRows !== undefined && rawWantRows !== null && typeof rawWantRows !== "boolean") {
    fail(`${path}.want_rows`, "expected a boolean or null");
  }
  return { sql, sqlId, args, namedArgs, wantRows: rawWantRows ?? true };
}

function condition(raw: unknown, path: string, stepIndex: number, depth: number, limits: ProtocolLimits): BatchCond {
  if (depth > limits.maxConditionDepth) fail(path, `condition nested deeper than ${limits.maxConditionDepth}`);
  const obj = object(raw, path);
  const type = obj["type"];
  switch (type) {
    case "ok":
    case "error": {
      const step = uint32(obj["step"], `${path}.step`);
      // sqld: a condition may only refer to an earlier step.
      if (step >= stepIndex) throw new ProtocolError("Invalid reference to step in a batch condition");
      return { type, step };
    }
    case "not":
      return { type, cond: condition(obj["cond"], `${path}.cond`, stepIndex, depth + 1, limits) };
    case "and":
    case "or":
      return {
        type,
        conds: array(obj["conds"], `${path}.conds`, limits.maxStepsPerBatch).map((c, i) =>
          condition(c, `${path}.conds[${i}]`, stepIndex, depth + 1, limits),
        ),
      };
    case "is_autocommit":
      return { type };
    default:
      fail(`${path}.type`, `unknown condition type ${JSON.stringify(type)}`);
  }
}

function batchSteps(raw: unknown, path: string, limits: ProtocolLimits): BatchStep[] {
  const batch = object(raw, path);
  return array(batch["steps"], `${path}.steps`, limits.maxStepsPerBatch).map((s, i) => {
    const stepPath = `${path}.steps[${i}]`;
    const step = object(s, stepPath);
    const rawCondition = step["condition"];
    return {
      condition:
        rawCondition === undefined || rawCondition === null
          ? undefined
          : condition(rawCondition, `${stepPath}.condition`, i, 1, limits),
      stmt: stmt(step["stmt"], `${stepPath}.stmt`, limits),
    };
  });
}

function streamRequest(raw: unknown, path: string, limits: ProtocolLimits): StreamRequest {
  const obj = object(raw, path);
  const type = obj["type"];
  switch (type) {
    case "close":
    case "get_autocommit":
      return { type };
    case "execute":
      return { type, stmt: stmt(obj["stmt"], `${path}.stmt`, limits) };
    case "batch":
      return { type, steps: batchSteps(obj["batch"], `${path}.batch`, limits) };
    case "sequence":
    case "describe":
      return { type, ...sqlOrSqlId(obj, path) };
    case "store_sql":
      return { type, sqlId: int32(obj["sql_id"], `${path}.sql_id`), sql: requiredString(obj["sql"], `${path}.sql`) };
    case "close_sql":
      return { type, sqlId: int32(obj["sql_id"], `${path}.sql_id`) };
    default:
      fail(`${path}.type`, `unknown request type ${JSON.stringify(type)}`);
  }
}

export function decodePipelineRequest(body: unknown, limits: ProtocolLimits): PipelineRequest {
  const obj = object(body, "body");
  const rawBaton = obj["baton"];
  if (rawBaton !== undefined && rawBaton !== null && typeof rawBaton !== "string") {
    fail("body.baton", "expected a string or null");
  }
  const requests = array(obj["requests"], "body.requests", limits.maxRequestsPerPipeline).map((r, i) =>
    streamRequest(r, `body.requests[${i}]`, limits),
  );
  return { baton: rawBaton ?? null, requests };
}
