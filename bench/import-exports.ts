/**
 * Large exports of the three tools, made in memory for bench/imports.ts: seeded, so every run
 * reads the same bytes. Their columns are the fixtures' (test/fixtures/imports/generate.ts),
 * which follow each tool's export; the traffic is Zipf over pages, sources, countries and
 * browsers, so most values are rare, as on a real site.
 *
 *   plausibleExport(days)   a zip of one CSV per table, `days` days from 2022-01-01
 *   umamiExport(rows)       website_event rows over 2025
 *   goatCounterExport(rows) hits over 2025 (format version 2)
 */
import { strToU8, zipSync } from "fflate";
import { addDays } from "../worker/reports/timezone";
import { HOUR_WEIGHTS, prng, zipf } from "./reports";

export interface GeneratedExport {
  fileName: string;
  bytes: Uint8Array;
  /** The CSV bytes inside (a zip's unpacked size; the file's own size otherwise). */
  csvBytes: number;
  /** The first and last day it covers (UTC). */
  firstDay: string;
  lastDay: string;
}

type Random = () => number;

/** Values named by number, for the long tails: "/docs/page-17", "site-3.example". */
const named = (n: number, name: (i: number) => string) => Array.from({ length: n }, (_, i) => name(i));

const COUNTRIES = (
  "US DE GB FR IN CA NL BR JP ES IT PL SE AU CH AT BE DK NO FI IE PT CZ RO HU GR UA TR IL MX AR CL CO " +
  "PE ZA NG KE EG MA SA AE IR PK BD ID MY SG TH VN PH KR TW HK CN NZ RU BG RS HR SK LT"
).split(" ");
const BROWSERS = ["Chrome", "Safari", "Firefox", "Edge", "Samsung Browser", "Opera", "Brave", "Vivaldi", "DuckDuckGo", "Yandex"];
/** Each system: Plausible's name and versions, then Umami's and GoatCounter's spelling. */
const SYSTEMS: { name: string; versions: string[]; umami: string; goatCounter: string }[] = [
  { name: "Windows", versions: ["10", "11"], umami: "Windows 10", goatCounter: "Windows 11" },
  { name: "Mac", versions: ["14.6", "15.1"], umami: "Mac OS", goatCounter: "macOS 14.6" },
  { name: "iOS", versions: ["17.6", "18.1"], umami: "iOS", goatCounter: "iOS 18.1" },
  { name: "Android", versions: ["14", "15"], umami: "Android OS", goatCounter: "Android 15" },
  { name: "GNU/Linux", versions: ["(not set)"], umami: "Linux", goatCounter: "Linux" },
  { name: "Chrome OS", versions: ["(not set)"], umami: "Chrome OS", goatCounter: "Chrome OS" },
];
const REFERRERS = ["", "google.com", "news.ycombinator.com", "duckduckgo.com", "bing.com", "reddit.com", "github.com"].concat(
  named(33, (i) => `site-${i}.example`),
);

/** Zipf(1) shares of n values: value i gets 1 / (i + 1) of the whole, normalised. */
function shares(n: number): number[] {
  const weights = Array.from({ length: n }, (_, i) => 1 / (i + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / total);
}

/** A count drawn around `mean` (±40 %), rounded down: small means are often 0, as a long tail is. */
const around = (random: Random, mean: number) => Math.floor(mean * (0.6 + 0.8 * random()));

const csvText = (rows: (string | number)[][]) => rows.map((row) => row.join(",")).join("\n") + "\n";

// ---------------------------------------------------------------------------------------
// Plausible: a day's visitors spread over each table's values.

export function plausibleExport(days: number): GeneratedExport {
  const random = prng(4101);
  const first = "2022-01-01";
  const last = addDays(first, days - 1);
  const pages = named(300, (i) => (i === 0 ? "/" : `/docs/page-${i}`));
  const entries = pages.slice(0, 100);
  const sources = ["", "Google", "Bing", "DuckDuckGo", "Hacker News", "Reddit", "GitHub", "newsletter"].concat(
    named(32, (i) => `site-${i}.example`),
  );
  const browsers = BROWSERS.flatMap((b) => [`${b},131.0`, `${b},130.0`]);
  const systems = SYSTEMS.flatMap(({ name, versions }) => versions.map((v) => `${name},${v}`));
  const tables: Record<string, (string | number)[][]> = {
    visitors: [["date", "visitors", "pageviews", "bounces", "visits", "visit_duration"]],
    sources: [
      ["date", "source", "referrer", "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term"].concat([
        "pageviews",
        "visitors",
        "visits",
        "visit_duration",
        "bounces",
      ]),
    ],
    pages: [["date", "hostname", "page", "visits", "visitors", "pageviews", "scroll_depth", "pageleave_visitors"]],
    entry_pages: [["date", "entry_page", "visitors", "entrances", "visit_duration", "bounces", "pageviews"]],
    exit_pages: [["date", "exit_page", "visitors", "visit_duration", "exits", "bounces", "pageviews"]],
    locations: [["date", "country", "region", "city", "visitors", "visits", "visit_duration", "bounces", "pageviews"]],
    devices: [["date", "device", "visitors", "visits", "visit_duration", "bounces", "pageviews"]],
    browsers: [["date", "browser", "browser_version", "visitors", "visits", "visit_duration", "bounces", "pageviews"]],
    operating_systems: [
      ["date", "operating_system", "operating_system_version", "visitors", "visits", "visit_duration", "bounces", "pageviews"],
    ],
    custom_events: [["date", "name", "link_url", "path", "visitors", "events"]],
  };
  /** One row per value with a visitor: `fields(value, visitors)` gives the row after its date. */
  const spread = (
    table: string,
    day: string,
    total: number,
    values: string[],
    fields: (v: string, n: number) => (string | number)[],
  ) => {
    shares(values.length).forEach((share, i) => {
      const visitors = around(random, total * share);
      if (visitors > 0) tables[table]!.push([day, ...fields(values[i]!, visitors)]);
    });
  };
  const visitFields = (n: number) => [n, n + (n >> 3), n * 45, n >> 1, n * 2];
  for (let d = 0; d < days; d++) {
    const day = addDays(first, d);
    const weekend = [0, 6].includes(new Date(`${day}T00:00:00Z`).getUTCDay());
    const visitors = Math.round(2_000 * (1 + d / days) * (weekend ? 0.7 : 1) * (0.9 + 0.2 * random()));
    const visits = visitors + (visitors >> 3);
    tables.visitors!.push([day, visitors, visitors * 2, visits >> 1, visits, visits * 45]);
    spread("sources", day, visitors, sources, (source, n) => {
      const utm = source === "newsletter" ? ["newsletter", "email", `issue-${d % 52}`, "", ""] : ["", "", "", "", ""];
      return [source, source ? `https://${source.toLowerCase().replace(/ /g, "")}/` : "", ...utm, n * 2, n, n, n * 45, n >> 1];
    });
    spread("pages", day, visitors * 1.4, pages, (page, n) => ["example.com", page, n, n, n * 2, 60, n >> 1]);
    spread("entry_pages", day, visitors, entries, (page, n) => [page, n, n, n * 45, n >> 1, n * 2]);
    spread("exit_pages", day, visitors, entries, (page, n) => [page, n, n * 45, n, n >> 1, n * 2]);
    spread("locations", day, visitors, COUNTRIES, (country, n) => {
      // The largest countries come per region, as Plausible's table has them: rows the reader adds up.
      const region = COUNTRIES.indexOf(country) < 5 ? `${country}-${(n % 3) + 1}` : "";
      return [country, region, region ? 1000 + (n % 3) : 0, ...visitFields(n)];
    });
    spread("devices", day, visitors, ["Desktop", "Mobile", "Tablet"], (device, n) => [device, ...visitFields(n)]);
    spread("browsers", day, visitors, browsers, (browser, n) => [browser, ...visitFields(n)]);
    spread("operating_systems", day, visitors, systems, (system, n) => [system, ...visitFields(n)]);
    spread("custom_events", day, visitors / 10, ["Signup", "Download"], (name, n) => [name, "", "", n, n]);
  }
  const range = `${first.replaceAll("-", "")}_${last.replaceAll("-", "")}`;
  const mtime = new Date(2025, 0, 1);
  const files: Record<string, [Uint8Array, { mtime: Date }]> = {};
  let csvBytes = 0;
  for (const [table, rows] of Object.entries(tables)) {
    const bytes = strToU8(csvText(rows));
    csvBytes += bytes.length;
    files[`imported_${table}_${range}.csv`] = [bytes, { mtime }];
  }
  return { fileName: "plausible-export.zip", bytes: zipSync(files, { level: 6 }), csvBytes, firstDay: first, lastDay: last };
}

// ---------------------------------------------------------------------------------------
// Event exports: visits of sessions (some returning), each a few pageviews minutes apart.

interface Session {
  id: string;
  browser: number;
  system: number;
  country: number;
  mobile: boolean;
}

interface Visit {
  session: Session;
  visitId: string;
  referrer: string;
  campaign: string | null;
  /** Each pageview: its time (ms, UTC) and path. */
  views: { at: number; path: string }[];
}

/** A hex id from the generator (ids as the tools write them: Umami's UUIDs, GoatCounter's numbers). */
function uuid(random: Random): string {
  const hex = () =>
    Math.floor(random() * 2 ** 32)
      .toString(16)
      .padStart(8, "0");
  const s = hex() + hex() + hex() + hex();
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-a${s.slice(17, 20)}-${s.slice(20)}`;
}

/** Visits over 2025 until `rows` pageviews are made. */
function* visits(random: Random, rows: number): Generator<Visit> {
  const first = Date.parse("2025-01-01T00:00:00Z");
  const page = zipf(random, 500);
  const referrer = zipf(random, REFERRERS.length);
  const browser = zipf(random, BROWSERS.length);
  const system = zipf(random, SYSTEMS.length);
  const country = zipf(random, COUNTRIES.length);
  const hourCdf: number[] = [];
  HOUR_WEIGHTS.reduce((sum, w) => (hourCdf.push(sum + w), sum + w), 0);
  const hour = () => hourCdf.findIndex((c) => c >= random() * hourCdf[hourCdf.length - 1]!);
  // Returning visitors: a third of visits come from a session seen in the last few thousand.
  const recent: Session[] = [];
  let made = 0;
  for (let d = 0; d < 365 && made < rows; d++) {
    const dayEnd = Math.round((rows * (d + 1)) / 365);
    while (made < dayEnd) {
      const returning = recent.length > 100 && random() < 0.33;
      const session: Session = returning
        ? recent[Math.floor(random() * recent.length)]!
        : { id: uuid(random), browser: browser(), system: system(), country: country(), mobile: random() < 0.4 };
      if (!returning) recent[recent.length < 5_000 ? recent.length : Math.floor(random() * 5_000)] = session;
      const count = Math.min(dayEnd - made, 1 + Math.floor(-Math.log(1 - random()) * 2));
      let at = first + d * 86_400_000 + hour() * 3_600_000 + Math.floor(random() * 3_600_000);
      const views = [];
      for (let v = 0; v < count; v++, at += 10_000 + Math.floor(random() * 290_000)) {
        views.push({ at, path: `/docs/page-${page()}` });
      }
      made += count;
      yield {
        session,
        visitId: uuid(random),
        referrer: REFERRERS[referrer()]!,
        campaign: random() < 0.05 ? `issue-${d % 52}` : null,
        views,
      };
    }
  }
}

/** CSV lines gathered into one file's bytes, a chunk at a time (a single string of 300 MB would be near V8's limit). */
class CsvWriter {
  private readonly chunks: Uint8Array[] = [];
  private lines: string[] = [];
  private size = 0;

  line(fields: (string | number | boolean)[]): void {
    this.lines.push(fields.join(","));
    if (this.lines.length >= 20_000) this.flush();
  }

  private flush(): void {
    const chunk = strToU8(this.lines.join("\n") + "\n");
    this.chunks.push(chunk);
    this.size += chunk.length;
    this.lines = [];
  }

  bytes(): Uint8Array {
    if (this.lines.length > 0) this.flush();
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const chunk of this.chunks) out.set(chunk, (at += chunk.length) - chunk.length);
    return out;
  }
}

const umamiTime = (at: number) => new Date(at).toISOString().slice(0, 19).replace("T", " ");

/** Umami's website_event export: `rows` pageviews, and about 3 % more rows of custom events (left out by the reader). */
export function umamiExport(rows: number): GeneratedExport {
  const random = prng(4102);
  const out = new CsvWriter();
  out.line([
    "website_id,session_id,visit_id,event_id,hostname,browser,os,device,screen,language,country,subdivision1,city",
    "url_path,url_query,referrer_path,referrer_query,referrer_domain,page_title,event_type,event_name,created_at",
  ]);
  const website = uuid(random);
  for (const visit of visits(random, rows)) {
    const s = visit.session;
    const session = [
      website,
      s.id,
      visit.visitId,
      "",
      "example.com",
      BROWSERS[s.browser]!.toLowerCase(),
      SYSTEMS[s.system]!.umami,
      s.mobile ? "mobile" : "desktop",
      s.mobile ? "390x844" : "1920x1080",
      "en-US",
      COUNTRIES[s.country]!,
      `${COUNTRIES[s.country]!}-1`,
      "Springfield",
    ];
    visit.views.forEach(({ at, path }, v) => {
      const query = v === 0 && visit.campaign ? `utm_source=newsletter&utm_medium=email&utm_campaign=${visit.campaign}` : "";
      const referrer = v === 0 ? visit.referrer : "example.com";
      session[3] = uuid(random);
      out.line([...session, path, query, referrer ? "/" : "", "", referrer, "Example", 1, "", umamiTime(at)]);
      if (random() < 0.03) {
        session[3] = uuid(random);
        out.line([...session, path, "", "", "", "", "Example", 2, "signup", umamiTime(at + 5_000)]);
      }
    });
  }
  const bytes = out.bytes();
  return { fileName: "website_event.csv", bytes, csvBytes: bytes.length, firstDay: "2025-01-01", lastDay: "2025-12-31" };
}

/** GoatCounter's export (version 2): `rows` pageviews (2 % of visits are bots'), and about 2 % more rows of events; both left out by the reader. */
export function goatCounterExport(rows: number): GeneratedExport {
  const random = prng(4103);
  const out = new CsvWriter();
  out.line([
    '"2,Path",Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date',
  ]);
  const sessions = new Map<string, number>();
  const goatTime = (at: number) => `${new Date(at).toISOString().slice(0, 19)}Z`;
  for (const visit of visits(random, rows)) {
    const s = visit.session;
    let session = sessions.get(s.id);
    if (session === undefined) sessions.set(s.id, (session = sessions.size + 1_000_000));
    const device = [`${BROWSERS[s.browser]} 131`, SYSTEMS[s.system]!.goatCounter];
    const screen = s.mobile ? '"390,844,3"' : '"1920,1080,1"';
    const bot = random() < 0.02 ? 7 : 0;
    visit.views.forEach(({ at, path }, v) => {
      const [referrer, scheme] =
        v > 0 || visit.referrer === "" ? ["", ""] : visit.campaign ? [visit.campaign, "c"] : [`${visit.referrer}/`, "h"];
      const hit = [path, "Example", "false", "", ...device, session, bot, referrer, scheme, screen, COUNTRIES[s.country]!];
      out.line([...hit, v === 0, goatTime(at)]);
      if (random() < 0.02)
        out.line(["signup-click", "", "true", "", ...device, session, 0, "", "", screen, "", false, goatTime(at + 5_000)]);
    });
  }
  const bytes = out.bytes();
  return { fileName: "goatcounter-export.csv", bytes, csvBytes: bytes.length, firstDay: "2025-01-01", lastDay: "2025-12-31" };
}
