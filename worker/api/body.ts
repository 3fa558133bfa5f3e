/**
 * Reads a JSON request body under a size bound and validates it with a zod schema.
 * Every failure is a problem response naming what is wrong, thrown before any write:
 * 415 wrong content type, 413 too large, 400 not JSON, 422 a field is invalid.
 */
import type { z } from "zod";
import { firstIssue } from "../domain/schemas";
import { HttpProblem } from "../lib/problem";

export const DEFAULT_BODY_LIMIT = 64 * 1024;

export async function readBoundedText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > maxBytes) throw new HttpProblem(413, `The body is larger than ${maxBytes} bytes.`, { field: "body" });
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new HttpProblem(413, `The body is larger than ${maxBytes} bytes.`, { field: "body" });
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new HttpProblem(400, "The body is not valid UTF-8.", { field: "body" });
  }
}

export async function readJson(request: Request, maxBytes = DEFAULT_BODY_LIMIT): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    throw new HttpProblem(415, "Send the body as application/json.", { field: "content-type" });
  }
  const text = await readBoundedText(request, maxBytes);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpProblem(400, "The body is not valid JSON.", { field: "body" });
  }
}

export function validate<S extends z.ZodType>(schema: S, value: unknown, where: "body" | "query" | "path"): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { field, message } = firstIssue(result.error);
  const named = field === "body" ? where : field;
  const status = where === "body" ? 422 : 400;
  throw new HttpProblem(status, `${named}: ${message}`, { field: named });
}
