/**
 * The document's refusals: every error is a Problem (application/problem+json, never cached),
 * declared once per status as a response component and referenced by the operations, each
 * with its own description where it has one. Two families: answers to a request with an API
 * key (`Key…`), which carry the RateLimit headers once the key is known (api/pipeline.ts), and
 * answers without one (the collector, the signed webhook, /healthz).
 */
import { problemResource } from "../resources";
import { RATE_LIMIT_HEADERS, responseHeaders, type HeaderName } from "./headers";

interface Refusal {
  name: string;
  description: string;
  always?: readonly HeaderName[];
  sometimes?: readonly HeaderName[];
}

const INVALID_HOST = "a Host header that is not a host name and port (`field`: `host`, refused at the door)";

const KEY_REFUSALS: Record<number, Refusal> = {
  400: {
    name: "KeyBadRequest",
    description: `Malformed: a bad path or query parameter, a body that is not JSON or not UTF-8 (\`field\` names it), or ${INVALID_HOST}, without RateLimit headers.`,
    sometimes: RATE_LIMIT_HEADERS,
  },
  401: {
    name: "KeyUnauthorized",
    description: "No API key, or a malformed, unknown or revoked one.",
    always: ["WWW-Authenticate"],
  },
  403: {
    name: "KeyForbidden",
    description:
      "The key lacks the scope (`required_scope` names it, `field` is `authorization`), or may not act on the site (`field` names where the site came from).",
    always: RATE_LIMIT_HEADERS,
  },
  404: { name: "KeyNotFound", description: "No such resource.", always: RATE_LIMIT_HEADERS },
  409: { name: "KeyConflict", description: "The change conflicts with the resource's state.", always: RATE_LIMIT_HEADERS },
  413: {
    name: "KeyContentTooLarge",
    description: "The body is too large. A body declared over 2 MiB is refused at the door, without RateLimit headers.",
    sometimes: RATE_LIMIT_HEADERS,
  },
  415: { name: "KeyUnsupportedMediaType", description: "The body is not application/json.", always: RATE_LIMIT_HEADERS },
  422: { name: "KeyUnprocessableContent", description: "A field is invalid; `field` names it.", always: RATE_LIMIT_HEADERS },
  429: {
    name: "KeyTooManyRequests",
    description: "The key's request limit is used up; retry after Retry-After.",
    always: [...RATE_LIMIT_HEADERS, "Retry-After"],
  },
  503: {
    name: "KeyServiceUnavailable",
    description:
      "The database is not answering (nothing was written), or nothing is published yet; retry after Retry-After. RateLimit headers when the key was known.",
    always: ["Retry-After"],
    sometimes: RATE_LIMIT_HEADERS,
  },
};

const PLAIN_REFUSALS: Record<number, Refusal> = {
  400: {
    name: "BadRequest",
    description: `Malformed: a body that is not JSON or not UTF-8, a bad path parameter, or ${INVALID_HOST}.`,
  },
  401: { name: "Unauthorized", description: "The credentials are missing or do not verify; `field` names them." },
  403: { name: "Forbidden", description: "Refused for where it came from; `field` names why." },
  405: {
    name: "MethodNotAllowed",
    description:
      "Any path answers a method it does not list with 405: `Allow` names the methods it has, the problem the method refused.",
    always: ["Allow"],
  },
  413: { name: "ContentTooLarge", description: "The body is too large." },
  415: { name: "UnsupportedMediaType", description: "The body's Content-Type is not one the operation takes." },
  422: { name: "UnprocessableContent", description: "A field is invalid; `field` names it." },
  503: {
    name: "ServiceUnavailable",
    description: "The database is not answering; nothing was written. Retry after Retry-After.",
    always: ["Retry-After"],
  },
};

export type RefusalKind = "key" | "plain";

const FAMILIES: Record<RefusalKind, Record<number, Refusal>> = { key: KEY_REFUSALS, plain: PLAIN_REFUSALS };

/** The response components, for the document's `components.responses`. */
export function refusalComponents(): Record<string, unknown> {
  return Object.fromEntries(
    Object.values(FAMILIES).flatMap((family) =>
      Object.values(family).map(({ name, description, always, sometimes }) => [
        name,
        {
          description,
          headers: responseHeaders({ always, sometimes }),
          content: { "application/problem+json": { schema: problemResource } },
        },
      ]),
    ),
  );
}

/** A reference to the refusal of `status`, with the operation's own description when it has one. */
export function refusal(kind: RefusalKind, status: number | string, description?: string): Record<string, string> {
  const component = FAMILIES[kind][Number(status)];
  if (!component) throw new Error(`no ${kind} refusal for status ${status}`);
  return { $ref: `#/components/responses/${component.name}`, ...(description ? { description } : {}) };
}

export function hasRefusal(kind: RefusalKind, status: number | string): boolean {
  return Number(status) in FAMILIES[kind];
}
