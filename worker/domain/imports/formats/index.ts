/** A file of one of the tools' exports, read into days of counts (docs/imports.md). */
import type { ImportSource, ParsedImport } from "../model";
import { readGoatCounter } from "./goatcounter";
import { readPlausible } from "./plausible";
import { readUmami } from "./umami";

export interface ImportFile {
  name: string;
  bytes: Uint8Array;
}

export interface ReadOptions {
  /** The site's time zone: the days of an event export (Umami, GoatCounter) are its local days. */
  timeZone: string;
  /** The site's own hosts: a referrer from one of them is Direct / None. */
  siteHosts?: readonly string[];
}

/** Reads a whole file; a malformed one throws MalformedImport naming the file and line. */
export function readImport(source: ImportSource, file: ImportFile, options: ReadOptions): ParsedImport {
  switch (source) {
    case "plausible":
      return readPlausible(file.name, file.bytes);
    case "umami":
      return readUmami(file.name, file.bytes, options);
    case "goatcounter":
      return readGoatCounter(file.name, file.bytes, options);
  }
}
