/**
 * GoatCounter's CSV export (Settings → Export): one row per pageview, its header's first field
 * the format's version and the first column's name ("2,Path"). Versions 1 and 2 are read, any
 * other refused at line 1. Events and bots are left out, counted in the summary; pageviews are
 * added up into the site's local days (formats/events.ts). docs/imports.md has the mapping.
 */
import { MalformedImport, type ParsedImport, type RefusedRow } from "../model";
import { Columns, readCsvText, shown, type CsvRow } from "./csv";
import { instantOf, PageviewDays, type VisitDimension } from "./events";
import {
  browserName,
  countryCode,
  osName,
  pagePath,
  referrerHost,
  sourceOfHost,
  sourceOfName,
  splitVersion,
  utmValue,
} from "./values";

export const EVENTS_LEFT_OUT = "events are not imported";
export const BOT_LEFT_OUT = "bot";

const VERSIONED_PATH = /^(\d+),?Path$/;

/**
 * desktop, mobile or tablet from the screen's width in CSS pixels (GoatCounter keeps no
 * device): phones are at most 600 wide held upright, tablets up to 1024, desktops wider.
 */
export function deviceOfScreen(screen: string): "desktop" | "mobile" | "tablet" | null {
  const width = Number(/^\s*(\d{1,6})(?:\.\d+)?\s*,/.exec(screen)?.[1] ?? NaN);
  if (!(width > 0)) return null;
  return width <= 600 ? "mobile" : width <= 1024 ? "tablet" : "desktop";
}

export function readGoatCounter(
  fileName: string,
  bytes: Uint8Array,
  options: { timeZone: string; siteHosts?: readonly string[] },
): ParsedImport {
  // The header's first field is "2,Path" (quoted, as Go's encoding/csv writes it); a copy
  // saved by hand may have lost the quotes: put them back, so the header and rows line up.
  const text = new TextDecoder("utf-8").decode(bytes).replace(/^(\uFEFF?)(\d+),Path,/, '$1"$2,Path",');
  const csv = readCsvText(fileName, text);
  const version = VERSIONED_PATH.exec(csv.header[0] ?? "")?.[1];
  if (version !== "1" && version !== "2") {
    throw new MalformedImport(
      fileName,
      1,
      version === undefined
        ? 'not a GoatCounter export (its header starts with "2,Path")'
        : `export format version ${version} is not known (versions 1 and 2 are)`,
    );
  }
  const header = ["Path", ...csv.header.slice(1)];
  const c = new Columns(fileName, header, ["Path", "Event", "Bot", "Session", "Referrer", "Referrer scheme", "Date"]);
  const own = new Set((options.siteHosts ?? []).map((host) => host.toLowerCase().replace(/^www\./, "")));
  const days = new PageviewDays(options.timeZone);
  const refused: RefusedRow[] = [];
  for (const row of csv.rows) {
    const date = c.text(row, "Date");
    const instant = instantOf(date);
    if (instant === null) throw new MalformedImport(fileName, row.line, `Date: "${shown(date)}" is not an RFC 3339 time`);
    const event = c.text(row, "Event").toLowerCase();
    if (event !== "true" && event !== "false")
      throw new MalformedImport(fileName, row.line, `Event: "${shown(event)}" is not true or false`);
    const bot = c.text(row, "Bot");
    if (!/^\d{1,4}$/.test(bot)) throw new MalformedImport(fileName, row.line, `Bot: "${shown(bot)}" is not a number`);
    if (event === "true") refused.push({ file: fileName, line: row.line, reason: EVENTS_LEFT_OUT });
    else if (bot !== "0") refused.push({ file: fileName, line: row.line, reason: BOT_LEFT_OUT });
    else {
      // Old hits have no session: each is its own visitor.
      const session = c.text(row, "Session") || `line ${row.line}`;
      days.add({
        file: fileName,
        line: row.line,
        instant,
        session,
        visit: session,
        path: pagePath(c.text(row, "Path")),
        dimensions: { ...referrer(c, row, own), ...device(c, row, version) },
      });
    }
  }
  return { source: "goatcounter", days: days.result(), rowsRead: csv.rows.length, refused };
}

/** The source (and campaign) of a hit, by its referrer's scheme. */
function referrer(c: Columns, row: CsvRow, own: ReadonlySet<string>): Partial<Record<VisitDimension, string | null>> {
  const text = c.text(row, "Referrer");
  switch (c.text(row, "Referrer scheme")) {
    case "h":
      return { source: sourceOfHost(referrerHost(text), own) };
    case "c":
      return { source: sourceOfName(text, own), utm_campaign: utmValue(text) };
    default:
      // g (a name GoatCounter gave: "Hacker News") and o (other: an app), or none.
      return { source: sourceOfName(text, own) };
  }
}

/** Version 2 names the browser and system ("Firefox 68", "Windows 10"); version 1 kept the User-Agent, which is not read. */
function device(c: Columns, row: CsvRow, version: string): Partial<Record<VisitDimension, string | null>> {
  const out: Partial<Record<VisitDimension, string | null>> = {
    device: deviceOfScreen(c.text(row, "Screen size")),
    country: countryCode(c.text(row, "Location")),
  };
  if (version === "2") {
    const browser = splitVersion(c.text(row, "Browser"));
    const system = splitVersion(c.text(row, "System"));
    out.browser = browserName(browser.family, browser.version);
    out.os = osName(system.family, system.version);
  }
  return out;
}
