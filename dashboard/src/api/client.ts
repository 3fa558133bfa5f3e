/**
 * The dashboard's only way to the server: a typed client for the public API, its types
 * generated from the OpenAPI document (scripts/generate-api-types.ts), so a renamed route or
 * field breaks this typecheck rather than the screens. Every call carries the signed-in key, or,
 * for a person signed in with a passkey, the session cookie (same-origin) and on every write the
 * session's CSRF token (docs/api.md, Cookies and CSRF).
 */
import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "./openapi";

export type Schemas = components["schemas"];
export type Figure = Schemas["Figure"];
export type Site = Schemas["Site"];
export type Goal = Schemas["Goal"];
export type ApiKey = Schemas["ApiKey"];
export type Scope = ApiKey["scopes"][number];

/**
 * An RFC 9457 problem the API answered, with the field and scope it names. `pointer` (a JSON
 * pointer, /destinations/1/url) places a problem inside a list, where `field` names only the key.
 */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
    readonly requiredScope?: string,
    readonly pointer?: string,
  ) {
    super(message);
  }

  /** Any failure as a problem: an ApiProblem as it is, anything else in its own words. */
  static from(error: unknown): ApiProblem {
    return error instanceof ApiProblem ? error : new ApiProblem(0, String(error));
  }
}

let currentKey: string | null = null;

/** Sets the key every later call is made with (null: none). */
export function setApiKey(key: string | null): void {
  currentKey = key;
}

let csrfToken: string | null = null;

/** Sets the session's CSRF token, sent as x-wren-csrf on every write made with the cookie (null: none). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** The credentials a call carries besides the cookie: the key, or on a cookie write the CSRF token. */
export function credentialHeaders(method: string): Record<string, string> {
  if (currentKey) return { authorization: `Bearer ${currentKey}` };
  if (csrfToken && method !== "GET" && method !== "HEAD") return { "x-wren-csrf": csrfToken };
  return {};
}

const authorize: Middleware = {
  onRequest({ request }) {
    for (const [name, value] of Object.entries(credentialHeaders(request.method))) request.headers.set(name, value);
    return request;
  },
};

// Typed as the JSON answers: reports also speak CSV and NDJSON, which a screen asks for by name.
export const api = createClient<paths, `${string}/json`>({ baseUrl: location.origin, credentials: "same-origin" });
api.use(authorize);

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** An API problem document (or none) as the ApiProblem a screen shows. */
export function problemOf(status: number, statusText: string, error: unknown): ApiProblem {
  const problem = (error ?? {}) as { detail?: string; title?: string; field?: string; required_scope?: string; pointer?: string };
  return new ApiProblem(
    status,
    problem.detail ?? problem.title ?? `${status} ${statusText}`,
    problem.field,
    problem.required_scope,
    problem.pointer,
  );
}

/** The answer's body, or an ApiProblem carrying the API's own words. */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch {
    throw new ApiProblem(0, "The server cannot be reached. Is `wren start` running?");
  }
  const { data, error, response } = answer;
  if (response.ok) return data as T;
  throw problemOf(response.status, response.statusText, error);
}
