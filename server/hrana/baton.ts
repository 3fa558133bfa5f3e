/**
 * Batons in sqld's format: base64 (no padding) of stream id (u64 BE) + sequence number
 * (u64 BE) + HMAC-SHA256 of those 16 bytes under a key drawn at server start. A baton from an
 * earlier server run (or a forged one) fails the MAC check and is "invalid", as in sqld.
 */

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const PAYLOAD_BYTES = 16;
const MAC_BYTES = 32;
const BATON_BYTES = PAYLOAD_BYTES + MAC_BYTES;
const BATON_CHARS = Math.ceil((BATON_BYTES * 4) / 3); // 64, no padding needed
const BASE64_NO_PAD = /^[A-Za-z0-9+/]+$/;

export interface BatonPayload {
  streamId: bigint;
  seq: bigint;
}

export class BatonCodec {
  readonly #key = randomBytes(32);

  #mac(payload: Buffer): Buffer {
    return createHmac("sha256", this.#key).update(payload).digest();
  }

  encode({ streamId, seq }: BatonPayload): string {
    const payload = Buffer.alloc(PAYLOAD_BYTES);
    payload.writeBigUInt64BE(streamId, 0);
    payload.writeBigUInt64BE(seq, 8);
    return Buffer.concat([payload, this.#mac(payload)])
      .toString("base64")
      .replace(/=+$/, "");
  }

  /** Returns undefined for anything this server did not issue. */
  decode(baton: string): BatonPayload | undefined {
    if (baton.length !== BATON_CHARS || !BASE64_NO_PAD.test(baton)) return undefined;
    const data = Buffer.from(baton, "base64");
    if (data.length !== BATON_BYTES) return undefined;
    const payload = data.subarray(0, PAYLOAD_BYTES);
    if (!timingSafeEqual(this.#mac(payload), data.subarray(PAYLOAD_BYTES))) return undefined;
    return { streamId: payload.readBigUInt64BE(0), seq: payload.readBigUInt64BE(8) };
  }
}

export function randomU64(): bigint {
  return randomBytes(8).readBigUInt64BE(0);
}
