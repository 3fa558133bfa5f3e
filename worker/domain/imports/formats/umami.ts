/**
 * Umami's data export: one CSV of its `website_event` rows, with a header. Columns are read by
 * name; session_id, url_path, event_type and created_at are required. Pageviews (event_type 1)
 * are added up into the site's local days (formats/events.ts); custom events (2) and other
 * kinds are left out, counted in the summary. docs/imports.md has the mapping.
 */
import { MalformedImport, type ParsedImport, type RefusedRow } from "../model";
import { Columns, readCsv, shown } from "./csv";
import { instantOf, PageviewDays } from "./events";
import { browserName, countryCode, deviceName, osName, pagePath, sourceOfHost, utmValue } from "./values";

export const CUSTOM_EVENTS_LEFT_OUT = "custom events are not imported";

const UTM = ["utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"] as const;

export function readUmami(
  fileName: string,
  bytes: Uint8Array,
  options: { timeZone: string; siteHosts?: readonly string[] },
): ParsedImport {
  const csv = readCsv(fileName, bytes);
  const c = new Columns(fileName, csv.header, ["session_id", "url_path", "event_type", "created_at"]);
  const own = new Set((options.siteHosts ?? []).map((host) => host.toLowerCase().replace(/^www\./, "")));
  const days = new PageviewDays(options.timeZone);
  const refused: RefusedRow[] = [];
  const region = c.has("subdivision1") ? "subdivision1" : "region";
  for (const row of csv.rows) {
    const type = c.text(row, "event_type");
    if (!/^\d{1,3}$/.test(type)) throw new MalformedImport(fileName, row.line, `event_type: "${shown(type)}" is not a number`);
    const instant = instantOf(c.text(row, "created_at"));
    if (instant === null) {
      throw new MalformedImport(
        fileName,
        row.line,
        `created_at: "${shown(c.text(row, "created_at"))}" is not a time (2025-01-31 13:45:07)`,
      );
    }
    const session = c.text(row, "session_id");
    if (session === "") throw new MalformedImport(fileName, row.line, "session_id is empty");
    if (type !== "1") {
      refused.push({
        file: fileName,
        line: row.line,
        reason: type === "2" ? CUSTOM_EVENTS_LEFT_OUT : `event type ${type} is not imported`,
      });
      continue;
    }
    const hostname = c
      .text(row, "hostname")
      .toLowerCase()
      .replace(/^www\./, "");
    const query = new URLSearchParams(c.text(row, "url_query").replace(/^\?/, ""));
    days.add({
      file: fileName,
      line: row.line,
      instant,
      session,
      visit: c.text(row, "visit_id") || session,
      path: pagePath(c.text(row, "url_path")),
      dimensions: {
        source: sourceOfHost(c.text(row, "referrer_domain"), hostname === "" ? own : new Set([...own, hostname])),
        ...Object.fromEntries(UTM.map((name) => [name, utmValue(query.get(name))])),
        country: countryCode(c.text(row, "country") || c.text(row, region)),
        device: deviceName(c.text(row, "device")),
        browser: browserName(c.text(row, "browser")),
        os: osName(c.text(row, "os")),
      },
    });
  }
  return { source: "umami", days: days.result(), rowsRead: csv.rows.length, refused };
}
