/**
 * The country database, for workerd: the Data module `country.mmdb` that config.capnp serves
 * beside the collector (scripts/build.ts copies the file into dist/). Node cannot import it, so
 * only the worker imports this module; tests read the file from node_modules and hand it to
 * `setCountryDatabase` themselves. The import type-checks through ./mmdb.d.ts.
 */
import database from "./country.mmdb";

/** The database's bytes (CC0: sapics/ip-location-db, geo-whois-asn-country). */
export function bundledCountryDatabase(): Uint8Array {
  return new Uint8Array(database);
}
