/**
 * Request bodies under a byte bound: the declared length is checked first (and then holds,
 * the HTTP layer enforces it); a body without one is counted as it streams in, so an
 * oversized body is refused without being held in memory.
 *
 * A refused body is read to its end (and dropped) up to DRAIN_LIMIT before the 413 goes out:
 * answering while the sender is still writing lets the connection be reset under the answer,
 * and the collector, which forwards api requests as the front door, then sees a failed
 * subrequest instead of the 413. The front door refuses bodies over DRAIN_LIMIT itself.
 */
import { HttpProblem } from "./problem";

/** The most a refused body is read (and dropped) before the 413; the front door's own bound. */
export const DRAIN_LIMIT = 2 * 1024 * 1024;

function tooLarge(maxBytes: number): HttpProblem {
  return new HttpProblem(413, `The body is larger than ${maxBytes} bytes.`, { field: "body" });
}

/** Reads and drops what is left of a refused body, up to `limit` bytes in all. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, alreadyRead: number, limit: number): Promise<void> {
  let size = alreadyRead;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
      if (size > limit) break;
    }
  } catch {
    return;
  }
  await reader.cancel().catch(() => {});
}

export async function readBoundedText(request: Request, maxBytes: number): Promise<string> {
  return decodeUtf8(await readBoundedBytes(request, maxBytes));
}

/**
 * The body's bytes as sent (for a signature over the raw body, a file), under the same bound.
 * `drainLimit`: how much of a refused body is read and dropped before the 413 (an upload whose
 * own bound is above DRAIN_LIMIT drains up to twice that bound: a sender a little over it still
 * gets its answer).
 */
export async function readBoundedBytes(request: Request, maxBytes: number, drainLimit = DRAIN_LIMIT): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) {
    if (request.body && declared <= drainLimit) await drain(request.body.getReader(), 0, drainLimit);
    throw tooLarge(maxBytes);
  }
  if (!request.body) return new Uint8Array(0);
  // With a declared length the HTTP layer holds the body to it: read it in one go.
  if (Number.isInteger(declared) && declared >= 0) return new Uint8Array(await request.arrayBuffer());
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await drain(reader, size, drainLimit);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** One decoder for every request: `decode` without `stream` keeps no state between calls. */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Bytes as UTF-8 text; a 400 when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new HttpProblem(400, "The body is not valid UTF-8.", { field: "body" });
  }
}

/** The deepest nesting a JSON body may have; Wren's deepest body needs 5. */
export const MAX_JSON_DEPTH = 32;

/**
 * True when the text nests arrays and objects deeper than `max`: one pass over the raw text,
 * no recursion, brackets inside strings (escapes included) skipped. Run before JSON.parse, so
 * no recursive walk (the text check below, zod) ever meets a value deep enough to overflow
 * the stack — a few KB of `[[[…` used to be a 500.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped, whatever it is
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export function parseJson(text: string): unknown {
  const value = parseJsonText(text);
  refuseUnstorableText(value);
  return value;
}

/**
 * The JSON value of `text`, its strings as sent: for the collector's beacons, which clean the
 * text a URL can carry and then call refuseUnstorableText on what is left.
 */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "") throw new HttpProblem(400, "The body is empty; send a JSON object.", { field: "body" });
  if (nestedDeeperThan(text, MAX_JSON_DEPTH)) throw new HttpProblem(400, `The body is nested deeper than ${MAX_JSON_DEPTH} levels.`, { field: "body" });
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpProblem(400, "The body is not valid JSON.", { field: "body" });
  }
}

/** A 422 naming the first string (or key) in `value` that the database could not keep as sent. */
export function refuseUnstorableText(value: unknown): void {
  const field = unstorableTextAt(value);
  if (field !== null) {
    throw new HttpProblem(422, `${field}: must be text without NUL characters or unpaired surrogates (\\ud800–\\udfff)`, { field });
  }
}

/** A string the database cannot keep as sent: SQLite's text is UTF-8, and C APIs end it at NUL. */
function unstorable(text: string): boolean {
  // ES2024's isWellFormed (workerd and Node 22 have it; the project's lib is ES2023).
  return !(text as string & { isWellFormed(): boolean }).isWellFormed() || text.includes("\0");
}

/**
 * The dotted path (as zod names fields: `events.2.id`) of the first string, or object key, in
 * a parsed body that the database would refuse or change: a lone surrogate (JSON's "\ud800"
 * escapes allow one, UTF-8 has none, and the engine refuses it) or NUL (an id with one was
 * stored cut short, then read back as another). Checked once here, for every JSON body, so no
 * route can forget it; null when every string is fine.
 */
export function unstorableTextAt(value: unknown, path = ""): string | null {
  const at = (key: string | number) => (path ? `${path}.${key}` : String(key));
  if (typeof value === "string") return unstorable(value) ? path || "body" : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = unstorableTextAt(value[i], at(i));
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      if (unstorable(key)) return at(key.replace(/[\ud800-\udfff\0]/g, "\ufffd"));
      const found = unstorableTextAt(item, at(key));
      if (found !== null) return found;
    }
  }
  return null;
}

/** True for the media type named, with or without parameters such as charset. */
export function hasMediaType(request: Request, ...types: string[]): boolean {
  const value = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  return types.includes(value);
}
