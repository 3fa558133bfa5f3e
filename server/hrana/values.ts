/**
 * Hrana values <-> engine values, without loss: integers travel as decimal strings and map to
 * BigInt (the engine runs in safe-integer mode), floats stay JS numbers (which the engine always
 * binds as REAL), blobs are base64 without padding as sqld writes them.
 */

import { ProtocolError } from "./errors.js";

export type SqlValue = null | bigint | number | string | Uint8Array;

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const DECIMAL_INTEGER = /^[+-]?[0-9]+$/;
const BASE64_BODY = /^[A-Za-z0-9+/]*$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Text must be valid Unicode: lone surrogates cannot become UTF-8 (serde rejects them too). */
export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}

function decodeBase64(text: string, path: string): Uint8Array {
  const body = text.replace(/=+$/, "");
  if (!BASE64_BODY.test(body) || body.length % 4 === 1) {
    throw new ProtocolError(`${path}: invalid value, expected binary data encoded as base64`);
  }
  const bytes = Buffer.from(body, "base64");
  // Reject non-canonical encodings (stray bits in the last character), as the base64 crate does.
  if (bytes.toString("base64").replace(/=+$/, "") !== body) {
    throw new ProtocolError(`${path}: invalid value, expected binary data encoded as base64`);
  }
  return bytes;
}

export function decodeValue(raw: unknown, path: string): SqlValue {
  if (!isPlainObject(raw)) throw new ProtocolError(`${path}: expected a value object`);
  const type = raw["type"];
  switch (type) {
    case "null":
      return null;
    case "integer": {
      const value = raw["value"];
      if (typeof value !== "string" || !DECIMAL_INTEGER.test(value)) {
        throw new ProtocolError(`${path}.value: expected a decimal integer as a string`);
      }
      const int = BigInt(value);
      if (int < I64_MIN || int > I64_MAX) {
        throw new ProtocolError(`${path}.value: integer ${value} does not fit in 64 bits`);
      }
      return int;
    }
    case "float": {
      const value = raw["value"];
      if (typeof value !== "number" || !Number.isFinite(value)) {
        throw new ProtocolError(`${path}.value: expected a finite number`);
      }
      return value;
    }
    case "text": {
      const value = raw["value"];
      if (typeof value !== "string") throw new ProtocolError(`${path}.value: expected a string`);
      if (hasLoneSurrogate(value)) throw new ProtocolError(`${path}.value: string contains a lone UTF-16 surrogate`);
      return value;
    }
    case "blob": {
      const value = raw["base64"];
      if (typeof value !== "string") throw new ProtocolError(`${path}.base64: expected a string`);
      return decodeBase64(value, `${path}.base64`);
    }
    default:
      throw new ProtocolError(`${path}.type: unknown value type ${JSON.stringify(type)}`);
  }
}

/** JSON text of a float. -0 keeps its sign; ±Infinity (which SQLite can compute, e.g. 1e308*10)
 * is written as ±1e999: valid JSON that JavaScript parses back to ±Infinity, where sqld (serde)
 * would write null and break the client. SQLite never produces NaN (it becomes NULL). */
export function floatJson(value: number): string {
  if (Number.isFinite(value)) return Object.is(value, -0) ? "-0" : String(value);
  if (Number.isNaN(value)) return "null";
  return value > 0 ? "1e999" : "-1e999";
}

/** JSON text of one engine value as a Hrana Value. */
export function encodeValue(value: unknown): string {
  if (value === null || value === undefined) return '{"type":"null"}';
  switch (typeof value) {
    case "bigint":
      return `{"type":"integer","value":"${value}"}`;
    case "number":
      return `{"type":"float","value":${floatJson(value)}}`;
    case "string":
      return `{"type":"text","value":${JSON.stringify(value)}}`;
    default:
      if (value instanceof Uint8Array) {
        const base64 = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64");
        return `{"type":"blob","base64":"${base64.replace(/=+$/, "")}"}`;
      }
      throw new Error(`engine returned an unexpected value of type ${typeof value}`);
  }
}
