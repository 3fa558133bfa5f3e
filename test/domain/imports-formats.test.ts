/**
 * The import readers (worker/domain/imports/formats) on the fixture files: every cell each
 * gives, counted by hand from test/fixtures/imports/generate.ts (the numbers below are that
 * count, not the reader's output), and each malformed case refused with its file and line.
 */
import { strToU8, zipSync } from "fflate";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readImport } from "../../worker/domain/imports/formats";
import { MalformedImport, type ImportedDay, type ImportSource, type ParsedImport } from "../../worker/domain/imports/model";
import { readCsvText } from "../../worker/domain/imports/formats/csv";
import { deviceOfScreen } from "../../worker/domain/imports/formats/goatcounter";
import { browserName, osName, pagePath, sourceOfName, utmValue } from "../../worker/domain/imports/formats/values";
import { fixtureFiles, FIXTURES_DIR, GOATCOUNTER_CSV, PLAUSIBLE_ZIP, UMAMI_CSV } from "../fixtures/imports/generate";

const fixture = (name: string) => ({ name, bytes: new Uint8Array(readFileSync(join(FIXTURES_DIR, name))) });

/** A day as "visitors pageviews visits bounces duration" and its cells as "dimension value visitors/pageviews". */
function shape(day: ImportedDay) {
  const t = day.totals;
  return {
    day: day.day,
    totals: `${t.visitors} ${t.pageviews} ${t.visits} ${t.bounces} ${t.visitDuration}`,
    cells: day.cells.map((c) => `${c.dimension} ${c.value} ${c.visitors}/${c.pageviews}`),
  };
}

function malformed(source: ImportSource, name: string, bytes: Uint8Array, timeZone = "UTC"): MalformedImport {
  try {
    readImport(source, { name, bytes }, { timeZone });
  } catch (error) {
    if (error instanceof MalformedImport) return error;
    throw error;
  }
  throw new Error("expected MalformedImport");
}

describe("fixtures", () => {
  it("are what the generator writes, byte for byte", () => {
    for (const [name, bytes] of Object.entries(fixtureFiles())) {
      expect(Buffer.from(readFileSync(join(FIXTURES_DIR, name))).equals(Buffer.from(bytes)), name).toBe(true);
    }
  });
});

describe("Plausible", () => {
  const VISITORS = "imported_visitors_20250301_20250303.csv";
  const parsed = () => readImport("plausible", fixture(PLAUSIBLE_ZIP), { timeZone: "Europe/Berlin" });

  it("sums each table's rows into the day's cells", () => {
    const result: ParsedImport = parsed();
    expect(result.source).toBe("plausible");
    expect(result.rowsRead).toBe(3 + 11 + 10 + 6 + 6 + 9 + 7 + 8 + 9 + 2);
    expect(result.days.map(shape)).toEqual([
      {
        day: "2025-03-01",
        totals: "41 97 48 18 5230",
        cells: [
          "page / 28/45",
          "page /blog/hello 3/22",
          // Two hosts' /pricing rows: 11 + 4 visitors, 24 + 6 pageviews.
          "page /pricing 15/30",
          "entry_page / 30/70",
          "entry_page /blog/hello 11/27",
          "exit_page / 16/39",
          "exit_page /pricing 25/58",
          "source Direct / None 12/30",
          "source Google 18/40",
          "source Hacker News 4/12",
          "source newsletter 7/15",
          "utm_source newsletter 7/15",
          "utm_medium email 7/15",
          "utm_campaign spring 7/15",
          "country DE 20/45",
          "country FR 3/9",
          // US-CA and US-NY: 10 + 6, 25 + 14; the row without a country is no cell.
          "country US 16/39",
          "device desktop 25/60",
          "device mobile 14/33",
          "device tablet 2/4",
          "browser Chrome 130 5/10",
          "browser Chrome 131 20/50",
          "browser Firefox 133 10/25",
          "browser Safari 18 6/12",
          "os Linux 5/12",
          "os Windows 10 15/35",
          "os iOS 18 8/20",
          // Mac 10.15 is what every browser's frozen User-Agent says: Wren claims no version.
          "os macOS 3/8",
          "os macOS 14 10/22",
        ],
      },
      {
        day: "2025-03-02",
        totals: "37 80 42 15 4410",
        cells: [
          "page / 24/40",
          "page /docs 9/15",
          "page /pricing 11/25",
          "entry_page / 28/60",
          "entry_page /docs 9/20",
          "exit_page /docs 17/36",
          "exit_page /pricing 20/44",
          "source Direct / None 11/25",
          "source Google 16/35",
          // newsletter/email with and without the campaign: 6 + 4, 12 + 8.
          "source newsletter 10/20",
          "utm_source newsletter 10/20",
          "utm_medium email 10/20",
          "utm_campaign spring 6/12",
          "country DE 22/47",
          "country US 15/33",
          "device desktop 22/50",
          "device mobile 15/30",
          "browser Chrome 131 25/55",
          "browser Samsung Internet 27 12/25",
          "os Android 14 17/35",
          "os Windows 11 20/45",
        ],
      },
      {
        day: "2025-03-03",
        totals: "52 121 60 22 7315",
        cells: [
          "page / 33/60",
          "page /docs 12/21",
          "page /pricing 18/40",
          "entry_page / 40/95",
          "entry_page /pricing 12/26",
          "exit_page / 22/51",
          "exit_page /pricing 30/70",
          "source Direct / None 17/40",
          "source Google 25/60",
          "source Lobsters 10/21",
          "country DE 30/70",
          "country GB 22/51",
          "device desktop 30/72",
          "device mobile 22/49",
          "browser Chrome 131 35/82",
          "browser Edge 131 17/39",
          "os Windows 11 30/70",
          "os iOS 18 22/51",
        ],
      },
    ]);
    expect(result.refused).toEqual([
      { file: "imported_custom_events_20250301_20250303.csv", line: 2, reason: "custom events are not imported" },
      { file: "imported_custom_events_20250301_20250303.csv", line: 3, reason: "custom events are not imported" },
    ]);
    // Each day knows its rows, for a refusal of the whole day: 2025-03-01 has 1 + 4 + 4 + 2 + 2 + 5 + 3 + 4 + 5.
    expect(result.days.map((d) => d.origin)).toEqual([
      { rows: 30, first: { file: VISITORS, line: 2 } },
      { rows: 20, first: { file: VISITORS, line: 3 } },
      { rows: 19, first: { file: VISITORS, line: 4 } },
    ]);
  });

  const zipOf = (files: Record<string, string>) =>
    zipSync(Object.fromEntries(Object.entries(files).map(([n, t]) => [n, strToU8(t)])));
  const HEADER = "date,visitors,pageviews,bounces,visits,visit_duration\n";

  it("reads an older export: no imported_ prefix, sources without referrer, utm_source or pageviews, unknown columns", () => {
    const result = readImport(
      "plausible",
      {
        name: "old.zip",
        bytes: zipOf({
          "export/visitors_20240101_20240101.csv":
            "date,visitors,pageviews,bounces,visits,visit_duration,extra\n2024-01-01,9,20,4,10,300,x\n",
          "export/sources_20240101_20240101.csv":
            "date,source,utm_medium,utm_campaign,visitors,visits,bounces,visit_duration\n2024-01-01,DuckDuckGo,,,6,7,2,100\n2024-01-01,news.ycombinator.com,,,3,3,1,50\n",
          "export/README.txt": "not a table",
        }),
      },
      { timeZone: "UTC" },
    );
    expect(result.days.map(shape)).toEqual([
      { day: "2024-01-01", totals: "9 20 10 4 300", cells: ["source DuckDuckGo 6/0", "source Hacker News 3/0"] },
    ]);
    expect(result.rowsRead).toBe(3);
  });

  it("refuses a breakdown row of a day imported_visitors lacks, and keeps the rest", () => {
    const result = readImport(
      "plausible",
      {
        name: "cut.zip",
        bytes: zipOf({
          "imported_visitors_20240101_20240102.csv": `${HEADER}2024-01-01,9,20,4,10,300\n`,
          "imported_devices_20240101_20240102.csv": "date,device,visitors\n2024-01-01,Desktop,9\n2024-01-02,Mobile,3\n",
        }),
      },
      { timeZone: "UTC" },
    );
    expect(result.days.map(shape)).toEqual([{ day: "2024-01-01", totals: "9 20 10 4 300", cells: ["device desktop 9/0"] }]);
    expect(result.refused).toEqual([
      { file: "imported_devices_20240101_20240102.csv", line: 3, reason: "the day has no row in imported_visitors" },
    ]);
  });

  it("refuses malformed exports with the file and line", () => {
    const V = "imported_visitors_20240101_20240131.csv";
    const cases: [Uint8Array, string, number, string][] = [
      [strToU8("date,visitors\n"), "export.zip", 1, "not a zip file (Plausible's export is the zip it offers for download)"],
      [
        zipOf({ "imported_pages_20240101_20240131.csv": "date,page,visitors\n" }),
        "export.zip",
        1,
        "the zip has no imported_visitors_….csv (the day totals every import needs)",
      ],
      [
        zipOf({ [V]: "date,visitors,pageviews,bounces,visit_duration\n2024-01-01,1,1,1,1\n" }),
        V,
        1,
        "the header lacks the column visits",
      ],
      [
        zipOf({ [V]: `${HEADER}2024-01-01,9,20,4,10,300\n2024-01-02,12.5,20,4,10,300\n` }),
        V,
        3,
        'visitors: "12.5" is not a non-negative integer',
      ],
      [zipOf({ [V]: `${HEADER}2024-01-01,9,-20,4,10,300\n` }), V, 2, 'pageviews: "-20" is not a non-negative integer'],
      [zipOf({ [V]: `${HEADER}2024-02-30,9,20,4,10,300\n` }), V, 2, 'date: "2024-02-30" is not a date (YYYY-MM-DD)'],
      [zipOf({ [V]: `${HEADER}2024-01-01,9,20,4,10,300\n"2024-01-02,9,20,4,10,300\n` }), V, 3, "a quoted field is not closed"],
      [zipOf({ [V]: `${HEADER}2024-01-01,9,20,4,10,300,7\n` }), V, 2, "expected as many fields as the header has, found 7"],
      [zipOf({ [V]: "" }), V, 1, "the file is empty (a header line is required)"],
    ];
    for (const [bytes, file, line, reason] of cases) {
      const error = malformed("plausible", "export.zip", bytes);
      expect({ file: error.file, line: error.line, reason: error.reason }).toEqual({ file, line, reason });
      expect(error.message).toBe(`${file}, line ${line}: ${reason}`);
    }
  });

  it("refuses a zip bomb before unpacking it: too many files, or more than 1 GiB declared", () => {
    const many = zipOf(
      Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`imported_pages_2024010${i}_20240101.csv`, "x"])),
    );
    expect(malformed("plausible", "many.zip", many).reason).toBe("the zip holds more than 100 files");

    // A real zip whose central directory claims 2 GiB for its one file.
    const bomb = zipOf({ "imported_visitors_20240101_20240101.csv": `${HEADER}2024-01-01,9,20,4,10,300\n` });
    const view = new DataView(bomb.buffer, bomb.byteOffset, bomb.byteLength);
    const central = bomb.findIndex((_, i) => view.getUint32(i, true) === 0x02014b50);
    view.setUint32(central + 24, 0x80000000, true);
    const error = malformed("plausible", "bomb.zip", bomb);
    expect([error.file, error.line, error.reason]).toEqual(["bomb.zip", 1, "the zip unpacks to more than 1 GiB"]);
  });
});

describe("Umami", () => {
  it("adds the pageviews up into the site's local days", () => {
    const result = readImport("umami", fixture(UMAMI_CSV), { timeZone: "Europe/Berlin", siteHosts: ["example.com"] });
    expect(result.source).toBe("umami");
    expect(result.rowsRead).toBe(21);
    expect(result.days.map(shape)).toEqual([
      {
        day: "2025-03-01",
        // 6 sessions; 12 pageviews; 7 visits (s1 has two); bounces v1b, v3, v6; 330 + 60 + 180 + 45 s.
        totals: "6 12 7 3 615",
        cells: [
          "page / 4/5",
          "page /blog/hello 2/2",
          "page /pricing 3/3",
          "page /signup 2/2",
          "entry_page / 3/7",
          "entry_page /blog/hello 2/3",
          "entry_page /pricing 1/2",
          "exit_page / 3/4",
          "exit_page /blog/hello 1/1",
          "exit_page /pricing 1/2",
          "exit_page /signup 2/5",
          // s1's second visit came with no referrer, s5 with none, s6 from the site itself.
          "source Direct / None 3/4",
          "source Google 2/5",
          "source Hacker News 2/3",
          "utm_source newsletter 1/3",
          "utm_medium email 1/3",
          "country DE 2/6",
          "country FR 1/2",
          "country GB 1/1",
          "country US 2/3",
          // s5's laptop is a desktop.
          "device desktop 4/9",
          "device mobile 2/3",
          // crios is Chrome on iOS; ios is Safari on iOS; edge-chromium is Edge.
          "browser Chrome 2/6",
          "browser Edge 1/1",
          "browser Firefox 1/2",
          "browser Safari 2/3",
          "os Linux 1/2",
          "os Windows 10 2/5",
          "os iOS 2/3",
          "os macOS 1/2",
        ],
      },
      {
        day: "2025-03-02",
        totals: "2 4 2 1 600",
        cells: [
          "page / 1/1",
          "page /blog/hello 1/1",
          "page /pricing 1/1",
          "page /signup 1/1",
          "entry_page / 1/3",
          "entry_page /blog/hello 1/1",
          "exit_page /blog/hello 1/1",
          "exit_page /signup 1/3",
          "source Direct / None 1/1",
          "source DuckDuckGo 1/3",
          "utm_campaign spring 1/3",
          "country DE 1/3",
          "country IN 1/1",
          "device desktop 1/3",
          "device mobile 1/1",
          "browser Chrome 1/1",
          "browser Firefox 1/3",
          "os Android 1/1",
          "os Windows 10 1/3",
        ],
      },
      {
        // s9's 23:30 and 23:31 UTC on 2 March are 00:30 and 00:31 on 3 March in Berlin.
        day: "2025-03-03",
        totals: "2 3 2 1 75",
        cells: [
          "page / 1/1",
          "page /docs 2/2",
          "entry_page / 1/2",
          "entry_page /docs 1/1",
          "exit_page /docs 2/3",
          "source Direct / None 1/1",
          "source GitHub 1/2",
          "country DE 1/1",
          "country US 1/2",
          "device desktop 1/1",
          "device tablet 1/2",
          "browser Chrome 1/1",
          "browser Safari 1/2",
          "os Windows 10 1/1",
          "os iOS 1/2",
        ],
      },
    ]);
    expect(result.refused).toEqual([
      { file: UMAMI_CSV, line: 12, reason: "custom events are not imported" },
      { file: UMAMI_CSV, line: 18, reason: "custom events are not imported" },
    ]);
  });

  it("cuts days in the site's zone: the same file in UTC puts s9 on 2 March", () => {
    const days = readImport("umami", fixture(UMAMI_CSV), { timeZone: "UTC", siteHosts: ["example.com"] }).days;
    expect(days.map((d) => [d.day, d.totals.visitors, d.totals.pageviews])).toEqual([
      ["2025-03-01", 6, 12],
      ["2025-03-02", 3, 6],
      ["2025-03-03", 1, 1],
    ]);
  });

  it("refuses malformed files with the line", () => {
    const header = "session_id,visit_id,url_path,event_type,created_at\n";
    const cases: [string, number, string][] = [
      ["session_id,url_path,created_at\ns,/,2025-01-01 00:00:00\n", 1, "the header lacks the column event_type"],
      [
        `${header}s,v,/,1,2025-01-01 00:00:00\ns,v,/,1,yesterday\n`,
        3,
        'created_at: "yesterday" is not a time (2025-01-31 13:45:07)',
      ],
      [`${header}s,v,/,1,2025-13-01 00:00:00\n`, 2, 'created_at: "2025-13-01 00:00:00" is not a time (2025-01-31 13:45:07)'],
      [`${header}s,v,/,pageview,2025-01-01 00:00:00\n`, 2, 'event_type: "pageview" is not a number'],
      [`${header},v,/,1,2025-01-01 00:00:00\n`, 2, "session_id is empty"],
      [`${header}s,v,"/a,1,2025-01-01 00:00:00\n`, 2, "a quoted field is not closed"],
    ];
    for (const [text, line, reason] of cases) {
      const error = malformed("umami", "umami.csv", strToU8(text));
      expect([error.file, error.line, error.reason]).toEqual(["umami.csv", line, reason]);
    }
  });
});

describe("GoatCounter", () => {
  it("adds the hits up into the site's local days, leaving out events and bots", () => {
    const result = readImport("goatcounter", fixture(GOATCOUNTER_CSV), { timeZone: "UTC", siteHosts: ["example.com"] });
    expect(result.source).toBe("goatcounter");
    expect(result.rowsRead).toBe(10);
    expect(result.days.map(shape)).toEqual([
      {
        day: "2025-03-01",
        // g1 (2 hits, 180 s), g2, g3 (bounces), g4 (2 hits, 30 s; its times are +02:00).
        totals: "4 6 4 2 210",
        cells: [
          "page / 3/3",
          "page /about 2/2",
          "page /blog 1/1",
          "entry_page / 2/3",
          "entry_page /about 1/2",
          "entry_page /blog 1/1",
          "exit_page / 2/3",
          "exit_page /about 1/2",
          "exit_page /blog 1/1",
          "source Direct / None 1/2",
          "source Google 1/2",
          "source Hacker News 1/1",
          "source spring-sale 1/1",
          "utm_campaign spring-sale 1/1",
          "country DE 2/2",
          "country GB 1/2",
          "country US 1/2",
          "device desktop 2/4",
          "device mobile 2/2",
          "browser Chrome 134 2/3",
          "browser Firefox 136 1/2",
          "browser Safari 18 1/1",
          "os Android 15 1/1",
          "os Windows 10 1/2",
          "os Windows 11 1/2",
          "os iOS 18 1/1",
        ],
      },
      {
        day: "2025-03-02",
        // The hit without a session is a visitor of its own; its referrer is the site itself.
        totals: "2 2 2 2 0",
        cells: [
          "page / 1/1",
          "page /about 1/1",
          "entry_page / 1/1",
          "entry_page /about 1/1",
          "exit_page / 1/1",
          "exit_page /about 1/1",
          "source Direct / None 1/1",
          "source DuckDuckGo 1/1",
          "country NL 1/1",
          // An 800 px wide screen is a tablet's.
          "device desktop 1/1",
          "device tablet 1/1",
          "browser Chrome 134 1/1",
          "browser Firefox 115 1/1",
          "os Android 14 1/1",
          "os Linux 1/1",
        ],
      },
    ]);
    expect(result.refused).toEqual([
      { file: GOATCOUNTER_CSV, line: 7, reason: "bot" },
      { file: GOATCOUNTER_CSV, line: 9, reason: "events are not imported" },
    ]);
  });

  it("reads version 1 (no browser or system: it kept the User-Agent) and a header that lost its quotes", () => {
    const v1 =
      '"1,Path",Title,Event,Bot,Session,FirstVisit,Referrer,Referrer scheme,Browser,Screen size,Location,Date\n' +
      '/a,A,false,0,7,true,lobste.rs/s/x,h,"Mozilla/5.0 (X11; Linux x86_64)","1920,1080,1",SE,2024-05-01T10:00:00Z\n';
    expect(readImport("goatcounter", { name: "v1.csv", bytes: strToU8(v1) }, { timeZone: "UTC" }).days.map(shape)).toEqual([
      {
        day: "2024-05-01",
        totals: "1 1 1 1 0",
        cells: [
          "page /a 1/1",
          "entry_page /a 1/1",
          "exit_page /a 1/1",
          "source Lobsters 1/1",
          "country SE 1/1",
          "device desktop 1/1",
        ],
      },
    ]);
    const unquoted =
      "2,Path,Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date\n" +
      '/b,B,false,,Firefox 68,Windows 10,9,0,,,"360,800,3",,true,2024-05-01T10:00:00Z\n';
    const [day] = readImport("goatcounter", { name: "v2.csv", bytes: strToU8(unquoted) }, { timeZone: "UTC" }).days;
    expect(shape(day!).cells).toEqual([
      "page /b 1/1",
      "entry_page /b 1/1",
      "exit_page /b 1/1",
      "source Direct / None 1/1",
      "device mobile 1/1",
      "browser Firefox 68 1/1",
      "os Windows 10 1/1",
    ]);
  });

  it("refuses an unknown version, a foreign file and bad rows at their line", () => {
    const header =
      '"2,Path",Title,Event,UserAgent,Browser,System,Session,Bot,Referrer,Referrer scheme,Screen size,Location,FirstVisit,Date\n';
    const row = (event: string, bot: string, date: string) => `/a,A,${event},,Firefox 68,Linux,1,${bot},,,,,true,${date}\n`;
    const cases: [string, number, string][] = [
      [header.replace('"2,', '"3,'), 1, "export format version 3 is not known (versions 1 and 2 are)"],
      ["Path,Title\n/a,A\n", 1, 'not a GoatCounter export (its header starts with "2,Path")'],
      [header.replace(",Bot", ",Robot"), 1, "the header lacks the column Bot"],
      [
        header + row("false", "0", "2024-05-01T10:00:00Z") + row("false", "0", "2024-05-01"),
        3,
        'Date: "2024-05-01" is not an RFC 3339 time',
      ],
      [header + row("maybe", "0", "2024-05-01T10:00:00Z"), 2, 'Event: "maybe" is not true or false'],
      [header + row("false", "yes", "2024-05-01T10:00:00Z"), 2, 'Bot: "yes" is not a number'],
    ];
    for (const [text, line, reason] of cases) {
      const error = malformed("goatcounter", "gc.csv", strToU8(text));
      expect([error.file, error.line, error.reason]).toEqual(["gc.csv", line, reason]);
    }
  });
});

describe("value forms", () => {
  it("are the collector's: browsers and systems with a major version, sources grouped, text cut as it cuts it", () => {
    expect(browserName("Chrome", "131.0.6778.86")).toBe("Chrome 131");
    expect(browserName("Samsung Browser", "27.0")).toBe("Samsung Internet 27");
    expect(browserName("edge-chromium")).toBe("Edge");
    expect(browserName("crios")).toBe("Chrome");
    expect(browserName("(not set)")).toBeNull();
    expect(osName("Windows", "11")).toBe("Windows 11");
    expect(osName("Windows 10")).toBe("Windows 10");
    expect(osName("Mac", "14.6")).toBe("macOS 14");
    expect(osName("Mac", "10.13.6")).toBe("macOS 10.13");
    expect(osName("Mac", "10.15")).toBe("macOS");
    expect(osName("Mac OS")).toBe("macOS");
    expect(osName("Android OS")).toBe("Android");
    expect(osName("iOS", "18.3")).toBe("iOS 18");
    expect(osName("GNU/Linux", "(not set)")).toBe("Linux");
    expect(sourceOfName("l.facebook.com", new Set())).toBe("Facebook");
    expect(sourceOfName("www.example.org", new Set())).toBe("example.org");
    expect(sourceOfName("shop.example", new Set(["shop.example"]))).toBe("Direct / None");
    expect(sourceOfName("Direct / None", new Set())).toBe("Direct / None");
    expect(utmValue(`  ${"x".repeat(150)}`)).toBe("x".repeat(100));
    expect(utmValue("a\u0000b")).toBe("ab");
    expect(pagePath("blog/post?id=1#top")).toBe("/blog/post");
    expect(pagePath("/" + "p".repeat(2000))).toHaveLength(1024);
  });

  it("tell GoatCounter's devices by the screen's width: up to 600 a phone, up to 1024 a tablet", () => {
    expect(["600,900,3", "601,900,2", "1024,768,1", "1025,768,1", "", "0,0,1"].map(deviceOfScreen)).toEqual([
      "mobile",
      "tablet",
      "tablet",
      "desktop",
      null,
      null,
    ]);
  });
});

describe("a CSV read in pieces (past csv-parse's ~112 MB, a file is parsed in 16 MB pieces)", () => {
  // Quoted fields with commas, doubled quotes and line breaks, so a piece must not end inside one.
  const text = [
    "path,title,count",
    ...Array.from({ length: 40 }, (_, i) => `/p${i},"a ""quoted"", title\nover two lines ${i}",${i}`),
    "/last,plain,40",
    "",
  ].join("\n");

  it("gives the same header, rows and lines in pieces of 50 characters as whole", () => {
    const whole = readCsvText("t.csv", text);
    expect(whole.rows).toHaveLength(41);
    expect(whole.rows[1]).toEqual({ line: 4, fields: ["/p1", 'a "quoted", title\nover two lines 1', "1"] });
    expect(readCsvText("t.csv", text, 50)).toEqual(whole);
  });

  it("names the line of a row of the wrong width in a later piece", () => {
    const broken = text.replace("/p30,", "/p30,extra,");
    const error = (() => {
      try {
        readCsvText("t.csv", broken, 50);
      } catch (e) {
        return e as MalformedImport;
      }
      throw new Error("not refused");
    })();
    expect([error.line, error.reason]).toEqual([62, "expected as many fields as the header has, found 4"]);
    // The same line (where the row starts) as read whole, where csv-parse itself counts.
    expect(() => readCsvText("t.csv", broken)).toThrow(expect.objectContaining({ line: 62 }));
  });
});
