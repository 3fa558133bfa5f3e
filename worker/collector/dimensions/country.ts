/**
 * The visitor's country (ISO 3166-1 alpha-2) from their IP address, looked up in an MMDB
 * database: @ip-location-db/geo-whois-asn-country-mmdb (CC0; IPv4 and IPv6 in one file,
 * each record `{ country_code: "US" }`). The address itself is never kept: only the code.
 *
 * The database bytes come from whoever runs this: in workerd, the Data module served
 * beside the collector (./country-database.ts); in Node tests, the file read
 * from node_modules. `setCountryDatabase` names the source; the reader is built from it on
 * the first lookup and kept for the isolate's life.
 */
import { Reader, type Response } from "mmdb-lib";
import { isPublic, parseAddress } from "./client-address";

/**
 * Codes in the database that are not a country: ZZ (unknown) and the registries' region
 * codes EU and AP.
 */
const NOT_COUNTRIES = new Set(["ZZ", "EU", "AP"]);

interface BufferLike {
  from(arrayBuffer: ArrayBufferLike, byteOffset: number, length: number): Uint8Array;
}

/**
 * mmdb-lib reads the database through Node's Buffer (readUInt32BE, toString("utf8", …)) and
 * refuses anything else (`Buffer.isBuffer`); it also builds a Buffer when it is first loaded.
 * The collector has it through nodejs_compat, the default from its compatibilityDate on (config.capnp). The view shares the bytes:
 * nothing is copied.
 */
function asBuffer(bytes: Uint8Array): Uint8Array {
  const NodeBuffer = (globalThis as unknown as { Buffer?: BufferLike }).Buffer;
  if (!NodeBuffer) throw new Error("the country lookup needs a global Buffer (workerd: nodejs_compat)");
  return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** One opened MMDB country database. */
export class CountryDatabase {
  readonly #reader: Reader<Response>;

  /** Throws when `bytes` is not an MMDB database. */
  constructor(bytes: Uint8Array) {
    this.#reader = new Reader<Response>(asBuffer(bytes) as never);
  }

  /**
   * The country code for `address` ("1.2.3.4", "1.2.3.4:5678", "[2001:db8::1]:443", …), or
   * null: for anything that is not a public address (private, loopback, link-local, CGNAT,
   * documentation, multicast, unspecified — no lookup is made), malformed text, or an address
   * the database does not place in a country.
   */
  country(address: string | null | undefined): string | null {
    const parsed = parseAddress(address);
    if (!parsed || !isPublic(parsed)) return null;
    let record: unknown;
    try {
      record = this.#reader.get(parsed.toString());
    } catch {
      return null;
    }
    const code = record !== null && typeof record === "object" ? (record as { country_code?: unknown }).country_code : undefined;
    if (typeof code !== "string" || !/^[A-Z]{2}$/.test(code) || NOT_COUNTRIES.has(code)) return null;
    return code;
  }
}

let load: (() => Uint8Array) | null = null;
/** The database once built; null when there is no source or it could not be opened. */
let database: CountryDatabase | null | undefined;

/**
 * Where `countryOf` gets the database bytes (called once, on the first lookup), or null for
 * no country lookups. Replaces a database already built.
 */
export function setCountryDatabase(source: (() => Uint8Array) | null): void {
  load = source;
  database = undefined;
}

/** The country code of `address` in the database `setCountryDatabase` named; null without one. */
export function countryOf(address: string | null | undefined): string | null {
  if (database === undefined) {
    try {
      database = load ? new CountryDatabase(load()) : null;
    } catch (error) {
      // A broken bundle is not retried on every beacon: no countries until the next isolate.
      console.error("country lookup disabled:", error instanceof Error ? error.message : error);
      database = null;
    }
  }
  return database ? database.country(address) : null;
}
