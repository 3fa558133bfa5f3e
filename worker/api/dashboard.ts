/**
 * Serves the built dashboard from the `DASHBOARD` disk service. The disk service sets no
 * content types, so they are added here; unknown paths fall back to index.html (the
 * dashboard is a single-page app). Every file goes out with `securityHeaders`.
 */
const CONTENT_TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  json: "application/json",
  png: "image/png",
  ico: "image/x-icon",
};

/**
 * The page holds an API key in sessionStorage, so nothing but its own files may run or load:
 * one module script and one stylesheet from this origin, fetches to this origin's API. An
 * injected inline script or foreign request is refused, and no site may frame the page
 * (X-Frame-Options for browsers that predate frame-ancestors).
 */
export const securityHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

export async function serveDashboard(request: Request, files: Fetcher | undefined): Promise<Response | undefined> {
  if (!files || (request.method !== "GET" && request.method !== "HEAD")) return undefined;
  const url = new URL(request.url);
  const relative = url.pathname.replace(/^\/dashboard\/?/, "") || "index.html";
  if (relative.split("/").some((part) => part.startsWith("."))) return undefined;
  let response = await files.fetch(new Request(`http://dashboard/${relative}`, { method: request.method }));
  let served = relative;
  if (response.status === 404 || !/\.[a-z0-9]+$/i.test(relative)) {
    response = await files.fetch(new Request("http://dashboard/index.html", { method: request.method }));
    served = "index.html";
  }
  if (!response.ok) return undefined;
  const extension = served.split(".").pop() ?? "";
  const headers = new Headers(response.headers);
  headers.set("content-type", CONTENT_TYPES[extension] ?? "application/octet-stream");
  headers.set("cache-control", served === "index.html" ? "no-cache" : "public, max-age=300");
  for (const [name, value] of Object.entries(securityHeaders)) headers.set(name, value);
  return new Response(response.body, { status: 200, headers });
}
