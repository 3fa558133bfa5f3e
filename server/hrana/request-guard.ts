/**
 * Refuses requests that did not come from a database client: a web page the operator visits
 * can make the browser POST to 127.0.0.1 (blind, as a "simple" text/plain request) or, after
 * DNS rebinding, read the answers under its own host name. Database clients send none of what
 * browsers do, so the server refuses:
 *   - any request with an `Origin` or `Sec-Fetch-Site` header (only browsers send them);
 *   - any request whose `Host` is not the address the connection arrived on (`localhost` too
 *     when that is a loopback address), or one of the operator's extra names; a rebound
 *     domain name never matches;
 *   - a pipeline whose body is not declared `application/json` (what @libsql/client and every
 *     Hrana client send; a form or text/plain body is a browser's).
 */

import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { HttpError } from "./errors.js";

function forbidden(message: string): HttpError {
  return new HttpError(403, { error: `Forbidden: \`${message}\`` });
}

/** `host` of a Host header value, lower-cased, without brackets; port separately. */
function splitHost(value: string): { host: string; port: string | undefined } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!match) return undefined;
  return { host: match[1]!.replace(/^\[|\]$/g, "").toLowerCase().replace(/\.$/, ""), port: match[2] };
}

/** The connection's own address as a client would write it (IPv4-mapped IPv6 unwrapped). */
function localHost(req: IncomingMessage): string | undefined {
  const address = req.socket.localAddress;
  if (address === undefined) return undefined;
  return address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "").toLowerCase();
}

function isLoopback(address: string): boolean {
  return address === "::1" || (isIP(address) === 4 && address.startsWith("127."));
}

export class RequestGuard {
  readonly #extraHosts: ReadonlySet<string>;

  /** @param extraHosts host names (without port) that clients may also use, e.g. the name a
   * proxy or other box reaches this server by. */
  constructor(extraHosts: Iterable<string> = []) {
    this.#extraHosts = new Set([...extraHosts].map((h) => h.toLowerCase().replace(/^\[|\]$/g, "")));
  }

  /** Throws an HttpError (403) for a request a browser could have sent. */
  checkSender(req: IncomingMessage): void {
    if (req.headers.origin !== undefined) throw forbidden("requests with an Origin header are refused");
    if (req.headers["sec-fetch-site"] !== undefined) throw forbidden("requests from browsers are refused");
    const header = req.headers.host;
    const given = header === undefined ? undefined : splitHost(header);
    const local = localHost(req);
    const port = String(req.socket.localPort ?? "");
    if (given === undefined || local === undefined || (given.port ?? "80") !== port) {
      throw forbidden(`Host must be this server's address (${local ?? "?"}:${port})`);
    }
    const known = given.host === local || (given.host === "localhost" && isLoopback(local)) || this.#extraHosts.has(given.host);
    if (!known) throw forbidden(`Host must be this server's address (${local}:${port})`);
  }

  /** Throws an HttpError (415) unless the body is declared as JSON. */
  checkJsonBody(req: IncomingMessage): void {
    const type = (req.headers["content-type"] ?? "").split(";", 1)[0]!.trim().toLowerCase();
    if (type !== "application/json") {
      throw new HttpError(415, { error: "Unsupported Media Type: `send the pipeline as application/json`" });
    }
  }
}
