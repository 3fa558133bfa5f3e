/**
 * Reads a JSON request body under a size bound and validates it with a zod schema.
 * Every failure is a problem response naming what is wrong, thrown before any write:
 * 415 wrong content type, 413 too large, 400 not JSON, 422 a field is invalid.
 */
import type { z } from "zod";
import { parseJson, readBoundedText, unstorableTextAt } from "../lib/body";
import { describeIssue } from "../lib/issues";
import { HttpProblem } from "../lib/problem";

export const DEFAULT_BODY_LIMIT = 64 * 1024;

export async function readJson(request: Request, maxBytes = DEFAULT_BODY_LIMIT): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    throw new HttpProblem(415, "Send the body as application/json.", { field: "content-type" });
  }
  return parseJson(await readBoundedText(request, maxBytes));
}

export function validate<S extends z.ZodType>(schema: S, value: unknown, where: "body" | "query" | "path"): z.output<S> {
  // Bodies were checked as they were parsed; a query or path can carry NUL too (`%00`).
  const unstorable = where === "body" ? null : unstorableTextAt(value);
  if (unstorable !== null) {
    throw new HttpProblem(400, `${unstorable}: must be text without NUL characters`, { field: unstorable });
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { field, message } = describeIssue(result.error, value);
  const named = field === "body" ? where : field;
  const status = where === "body" ? 422 : 400;
  throw new HttpProblem(status, `${named}: ${message}`, { field: named });
}
