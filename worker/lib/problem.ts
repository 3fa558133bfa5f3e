/**
 * RFC 9457 problem details: every error Wren answers is `application/problem+json` with
 * `type`, `title`, `status`, `detail` and, where one field is at fault, `field`; never cached.
 */
/** Anything `new Headers()` takes (spelled out: Node has no global HeadersInit type). */
type HeaderInput = ConstructorParameters<typeof Headers>[0];

export interface Problem {
  type?: string;
  title: string;
  status: number;
  detail: string;
  field?: string;
  [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

export function problem(
  status: number,
  detail: string,
  extra: { field?: string; headers?: HeaderInput; [k: string]: unknown } = {},
): Response {
  const { headers, ...rest } = extra;
  const body: Problem = { type: "about:blank", title: TITLES[status] ?? "Error", status, detail, ...rest };
  const responseHeaders = new Headers(headers);
  responseHeaders.set("content-type", "application/problem+json");
  // An error answers one caller's request: no shared cache may keep it for another.
  responseHeaders.set("cache-control", "no-store");
  return new Response(JSON.stringify(body), { status, headers: responseHeaders });
}

/** Thrown anywhere below a handler; the router turns it into a problem response. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly extra: { field?: string; headers?: HeaderInput; [k: string]: unknown } = {},
  ) {
    super(detail);
  }

  toResponse(): Response {
    return problem(this.status, this.detail, this.extra);
  }
}
