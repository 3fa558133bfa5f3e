/**
 * Optional static bearer token. Both sides are hashed with SHA-256 first so timingSafeEqual
 * compares equal-length buffers and the comparison time says nothing about the token.
 * Refusals use sqld's 401 body shape: {"error": "Unauthorized: `<reason>`"}.
 */

import { createHash, timingSafeEqual } from "node:crypto";
import { HttpError } from "./errors.js";

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

function unauthorized(reason: string): HttpError {
  return new HttpError(401, { error: `Unauthorized: \`${reason}\`` }, { "www-authenticate": "Bearer" });
}

export class BearerAuth {
  readonly #expected: Buffer;

  constructor(token: string) {
    this.#expected = digest(token);
  }

  /** Throws a 401 HttpError unless the header is `Bearer <the token>`. */
  check(header: string | undefined): void {
    if (header === undefined || header === "") throw unauthorized("Expected authorization header but none given");
    const space = header.indexOf(" ");
    if (space < 0) throw unauthorized("Auth string does not conform to '<scheme> <token>' form");
    if (header.slice(0, space).toLowerCase() !== "bearer") {
      throw unauthorized("The authentication scheme in the `Authorization` HTTP header is not supported");
    }
    if (!timingSafeEqual(digest(header.slice(space + 1).trim()), this.#expected)) {
      throw unauthorized("Authentication failed");
    }
  }
}
