/**
 * A JSON answer, built with JSON.stringify and `new Response`. workerd's `Response.json` did the
 * same work for about 40 µs more CPU per beacon, 15 % of the collector's own cost
 * (docs/performance.md, "Ingest"), so the collector's hot paths answer through this.
 */
export function jsonResponse(body: unknown, init: { status: number; headers?: Record<string, string> }): Response {
  return new Response(JSON.stringify(body), {
    status: init.status,
    headers: { "content-type": "application/json", ...init.headers },
  });
}
