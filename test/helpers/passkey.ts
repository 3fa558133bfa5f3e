/**
 * A software passkey authenticator for API-level tests: it answers the server's WebAuthn
 * options the way a platform authenticator with user verification does (P-256, "none"
 * attestation, discoverable credentials), with real signatures, so the server's verification
 * (@simplewebauthn/server) runs unchanged. The browser tests use Chromium's virtual
 * authenticator instead; this one lets a test replay, tamper and time-travel.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import type { Answer, Call } from "./http";
import { peopleUrl } from "../../worker/lib/public-url";

const b64url = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString("base64url");
const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest();

/** The few CBOR items WebAuthn needs: ints, byte and text strings, maps. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
  if (value instanceof Map) {
    return Buffer.concat([head(5, value.size), ...[...value.entries()].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  }
  throw new Error(`cbor: ${typeof value}`);
}

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  userHandle: string;
  counter: number;
}

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];
  constructor(
    readonly origin: string,
    readonly rpId = new URL(origin).hostname,
  ) {}

  private authData(flags: number, counter: number, attested?: Buffer): Buffer {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter, 0);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), c, ...(attested ? [attested] : [])]);
  }

  /** navigator.credentials.create for PublicKeyCredentialCreationOptionsJSON. */
  register(options: { challenge: string; user: { id: string } }): Record<string, unknown> {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const jwk = publicKey.export({ format: "jwk" });
    const cose = cbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, "base64url")],
        [-3, Buffer.from(jwk.y!, "base64url")],
      ]),
    );
    const id = randomBytes(16);
    const idLength = Buffer.from([id.length >> 8, id.length & 255]);
    const authData = this.authData(0x45, 0, Buffer.concat([Buffer.alloc(16), idLength, id, cose]));
    const attestationObject = cbor(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]),
    );
    const clientDataJSON = JSON.stringify({
      type: "webauthn.create",
      challenge: options.challenge,
      origin: this.origin,
      crossOrigin: false,
    });
    this.credentials.push({ id, privateKey, userHandle: options.user.id, counter: 0 });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(Buffer.from(clientDataJSON)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }

  /** navigator.credentials.get: signs with the newest credential (or `which`), its counter bumped. */
  assert(options: { challenge: string }, which = this.credentials.length - 1, origin = this.origin): Record<string, unknown> {
    const credential = this.credentials[which]!;
    credential.counter += 1;
    const authData = this.authData(0x05, credential.counter);
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin, crossOrigin: false }),
    );
    const signature = sign("sha256", Buffer.concat([authData, sha256(clientDataJSON)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    };
  }
}

/** A person in a browser: the session cookie, the CSRF token, and calls that send both. */
export interface Browser {
  cookie: string | undefined;
  csrf: string | undefined;
  authenticator: SoftAuthenticator;
  /** A call as the dashboard makes it: cookie, Origin, and x-wren-csrf on writes. */
  call: Call;
  /** Keeps the Set-Cookie of an answer, as a browser would. */
  keep(answer: Answer): void;
}

/** A browser at the dashboard: its origin is where people sign in (a loopback address spelled localhost: lib/public-url.ts peopleUrl). */
export function browser(baseUrl: string, origin = peopleUrl(baseUrl)): Browser {
  const self: Browser = {
    cookie: undefined,
    csrf: undefined,
    authenticator: new SoftAuthenticator(origin),
    keep(answer) {
      const set = answer.headers.get("set-cookie");
      const value = set && /wren_session=([^;]*)/.exec(set)?.[1];
      if (set && value !== undefined && value !== null) self.cookie = value || undefined;
      if (answer.body?.csrf_token) self.csrf = answer.body.csrf_token;
    },
    async call(method, path, body, headers = {}) {
      const all: Record<string, string> = { origin, ...headers };
      if (self.cookie) all.cookie = `wren_session=${self.cookie}`;
      if (method !== "GET" && self.csrf && !("x-wren-csrf" in headers)) all["x-wren-csrf"] = self.csrf;
      for (const [k, v] of Object.entries(headers)) if (v === "") delete all[k];
      const init: RequestInit = { method, headers: all, redirect: "manual" };
      if (body !== undefined) {
        init.body = JSON.stringify(body);
        all["content-type"] = "application/json";
      }
      const response = await fetch(`${baseUrl}${path}`, init);
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      const answer = { status: response.status, headers: response.headers, body: parsed as never, text };
      self.keep(answer);
      return answer;
    },
  };
  return self;
}

/** Joins with an invitation token: options, a new passkey, registration. The registration's answer. */
export async function join(person: Browser, token: string, name: string): Promise<Answer> {
  const options = await person.call("POST", "/api/v1/auth/passkey/register/options", { invitation: token, name });
  if (options.status !== 200) return options;
  const response = person.authenticator.register(options.body.options);
  return person.call("POST", "/api/v1/auth/passkey/register", {
    challenge_id: options.body.challenge_id,
    invitation: token,
    name,
    response,
  });
}

/** Signs in with the newest passkey; returns the sign-in answer and what was sent (for replays). */
export async function signIn(person: Browser): Promise<{ answer: Answer; sent: Record<string, unknown> }> {
  const options = await person.call("POST", "/api/v1/auth/passkey/sign-in/options");
  if (options.status !== 200) return { answer: options, sent: {} };
  const sent = { challenge_id: options.body.challenge_id, response: person.authenticator.assert(options.body.options) };
  return { answer: await person.call("POST", "/api/v1/auth/passkey/sign-in", sent), sent };
}

/** The token of an invitation link (its fragment). */
export const tokenOf = (link: string) => link.slice(link.indexOf("#") + 1);
