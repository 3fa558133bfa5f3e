/**
 * The one mapping from a failed zod parse to what a client is told: the field at fault as a
 * dotted path (`events.2.path`) and a message. The API, the collector and the CLI all answer
 * with it, so the same mistake reads the same everywhere.
 */
import type { z } from "zod";

export interface FieldIssue {
  /** Dotted path of the field at fault; "body" when the value as a whole is wrong. */
  field: string;
  message: string;
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The first issue of a failed parse of `input`. */
export function describeIssue(error: z.ZodError, input: unknown): FieldIssue {
  const issue = error.issues[0];
  if (!issue) return { field: "body", message: "is invalid" };
  const at = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0] ?? "";
    return { field: at ? `${at}.${key}` : key, message: `unknown field "${key}"` };
  }
  if (issue.code === "invalid_union" && "discriminator" in issue) {
    // zod lists the discriminator's values on the issue; its own message quotes them as TS.
    const options = (issue as { options?: unknown }).options;
    return { field: at, message: Array.isArray(options) ? `must be one of ${options.join(", ")}` : issue.message };
  }
  if (issue.code === "invalid_type") {
    if (issue.path.length === 0) return { field: "body", message: "must be a JSON object" };
    if (valueAt(input, issue.path) === undefined) return { field: at, message: "is required" };
    if (issue.expected === "number") return { field: at, message: "must be a finite number" };
  }
  return { field: at || "body", message: issue.message };
}
