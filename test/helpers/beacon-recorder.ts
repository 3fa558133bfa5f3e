/**
 * A recorder between a test page and the collector, for the browser tests of the tracker's
 * options: the page's own server answers `/w/t.js*` from the collector and takes the beacons at
 * `/w/e` (the tracker posts beside its script), keeping each body in arrival order, beside the
 * pages it served, before passing it on unchanged. So a test can see what left the browser, and
 * when, whatever the collector then makes of it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export interface Arrival {
  kind: "beacon" | "page";
  /** The request's host and path: `shop.test:1234/w/e`. */
  url: string;
  at: number;
  /** A beacon's body, parsed. */
  body?: {
    site: string;
    session: string;
    events: { type: string; path: string; name?: string; props?: Record<string, string>; [k: string]: unknown }[];
  };
  bytes?: number;
  /** The collector's status for a beacon. */
  status?: number;
}

export class BeaconRecorder {
  readonly arrivals: Arrival[] = [];

  constructor(private readonly collector: () => string) {}

  /** The site's snippet, loading the tracker through the recorder, with extra attributes. */
  snippet(siteSnippet: string, attributes = ""): string {
    return siteSnippet.replace(/src="[^"]*"/, `src="/w/t.js"${attributes ? ` ${attributes}` : ""}`);
  }

  /** Notes a page served, so a beacon's arrival can be ordered against the next page. */
  page(req: IncomingMessage): void {
    this.arrivals.push({ kind: "page", url: `${req.headers.host}${req.url}`, at: performance.now() });
  }

  /** Whether the request is the recorder's; then it answers it. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? "/", "http://x");
    if (!url.pathname.startsWith("/w/")) return false;
    this.answer(req, res, url).catch((error: unknown) => res.writeHead(500).end(String(error)));
    return true;
  }

  beacons(): Arrival[] {
    return this.arrivals.filter((a) => a.kind === "beacon");
  }

  /** Every event of every beacon so far, in arrival order. */
  events(): NonNullable<Arrival["body"]>["events"] {
    return this.beacons().flatMap((a) => a.body?.events ?? []);
  }

  private async answer(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method === "GET" && url.pathname === "/w/t.js") {
      const response = await fetch(`${this.collector()}/t.js${url.search}`);
      res
        .writeHead(response.status, { "content-type": response.headers.get("content-type") ?? "text/javascript" })
        .end(await response.text());
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const arrival: Arrival = {
      kind: "beacon",
      url: `${req.headers.host}${req.url}`,
      at: performance.now(),
      bytes: raw.byteLength,
    };
    try {
      arrival.body = JSON.parse(raw.toString("utf8")) as Arrival["body"];
    } catch {
      // kept without a body: the test sees it
    }
    this.arrivals.push(arrival);
    const headers: Record<string, string> = {};
    for (const name of ["content-type", "origin", "user-agent"]) {
      const value = req.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    const response = await fetch(`${this.collector()}/e`, { method: "POST", headers, body: raw });
    arrival.status = response.status;
    res
      .writeHead(response.status, { "content-type": response.headers.get("content-type") ?? "application/json" })
      .end(await response.text());
  }
}
