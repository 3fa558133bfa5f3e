/**
 * Hrana values <-> engine values, without loss: integers travel as decimal strings and map to
 * BigInt (the engine runs in safe-integer mode), floats stay JS numbers (which the engine always
 * binds as REAL), blobs are base64 without padding as sqld writes them. A result's rows are
 * rendered into a reused UTF-8 buffer (JsonArrayWriter), not into a growing string.
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

/** JSON text of one row of engine values as a Hrana array of Values. */
export function rowJson(row: readonly unknown[]): string {
  let json = "[";
  for (let i = 0; i < row.length; i++) {
    if (i > 0) json += ",";
    json += encodeValue(row[i]);
  }
  return json + "]";
}

const SCRATCH_BYTES = 64 * 1024;
/** A buffer grown larger than this by a big result is not kept for the next one. */
const MAX_SPARE_BYTES = 4 * 1024 * 1024;
/** Elements are joined in a string up to about this length, then copied into the buffer at once. */
const PENDING_CHARS = 4096;
let spare: Buffer | undefined;

/**
 * A JSON array of many elements (a result's rows), written as UTF-8 into a buffer that writers
 * pass on to each other, and turned into a string once at the end. Appending to one string
 * instead (`json += row`) builds a rope of tens of thousands of pieces that stays alive while
 * the engine allocates the next rows, so young-generation GCs keep copying it, and it costs as
 * much again to flatten when the response is sent: on 10,000 rows that was a third of the
 * server's time. A writer never finished or released only means a fresh buffer for the next one.
 */
export class JsonArrayWriter {
  #bytes: Buffer | undefined;
  #length = 1;
  #pending = "";
  /** Length in UTF-16 code units of the JSON so far (closing bracket not included): the
   * measure the response budget counts in. */
  chars = 1;

  constructor() {
    const bytes = spare ?? Buffer.allocUnsafe(SCRATCH_BYTES);
    spare = undefined;
    bytes[0] = 0x5b; // [
    this.#bytes = bytes;
  }

  /** Appends one element, given as JSON text. */
  add(json: string): void {
    const element = this.chars === 1 ? json : `,${json}`;
    this.chars += element.length;
    this.#pending += element;
    if (this.#pending.length >= PENDING_CHARS) this.#flush();
  }

  /** The JSON text, closing bracket included. The writer cannot be used afterwards. */
  finish(): string {
    this.#pending += "]";
    this.#flush();
    const json = this.#bytes!.toString("utf8", 0, this.#length);
    this.release();
    return json;
  }

  /** Passes the buffer on to the next writer (after finish, or when the work failed). */
  release(): void {
    if (this.#bytes !== undefined && this.#bytes.length <= MAX_SPARE_BYTES) spare = this.#bytes;
    this.#bytes = undefined;
  }

  #flush(): void {
    let bytes = this.#bytes!;
    // A UTF-16 code unit takes at most 3 bytes of UTF-8.
    const needed = this.#length + 3 * this.#pending.length;
    if (needed > bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(2 * bytes.length, needed));
      bytes.copy(bigger, 0, 0, this.#length);
      this.#bytes = bytes = bigger;
    }
    this.#length += bytes.write(this.#pending, this.#length, "utf8");
    this.#pending = "";
  }
}
