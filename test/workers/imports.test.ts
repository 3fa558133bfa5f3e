/**
 * The import readers inside workerd (worker/domain/imports/formats), where the api worker will
 * run them for an upload: fflate unzips and csv-parse's browser build parses without Node's
 * Buffer or streams, and a malformed file is still refused with its line.
 */
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { readImport } from "../../worker/domain/imports/formats";
import { MalformedImport } from "../../worker/domain/imports/model";

describe("import readers in workerd", () => {
  it("read a Plausible zip and a Umami CSV into days of cells", () => {
    const zip = zipSync({
      "imported_visitors_20250301_20250301.csv": strToU8(
        "date,visitors,pageviews,bounces,visits,visit_duration\n2025-03-01,9,20,4,10,300\n",
      ),
      "imported_sources_20250301_20250301.csv": strToU8(
        'date,source,utm_campaign,visitors,pageviews\n2025-03-01,"Hacker News","a ""quoted"" name",9,20\n',
      ),
    });
    const plausible = readImport("plausible", { name: "export.zip", bytes: zip }, { timeZone: "UTC" });
    expect(plausible.days).toEqual([
      {
        day: "2025-03-01",
        totals: { visitors: 9, pageviews: 20, visits: 10, bounces: 4, visitDuration: 300 },
        cells: [
          { dimension: "source", value: "Hacker News", visitors: 9, pageviews: 20 },
          { dimension: "utm_campaign", value: 'a "quoted" name', visitors: 9, pageviews: 20 },
        ],
        origin: { rows: 2, first: { file: "imported_visitors_20250301_20250301.csv", line: 2 } },
      },
    ]);

    const umami = "session_id,url_path,event_type,created_at\ns1,/,1,2025-03-01 23:30:00\ns1,/a,1,2025-03-01 23:31:00\n";
    const days = readImport("umami", { name: "umami.csv", bytes: strToU8(umami) }, { timeZone: "Europe/Berlin" }).days;
    expect(days.map((d) => [d.day, d.totals])).toEqual([
      ["2025-03-02", { visitors: 1, pageviews: 2, visits: 1, bounces: 0, visitDuration: 60 }],
    ]);
  });

  it("refuse a broken quote with its line", () => {
    const bytes = strToU8(
      'session_id,url_path,event_type,created_at\ns1,/,1,2025-03-01 10:00:00\ns1,"/a,1,2025-03-01 10:01:00\n',
    );
    let error: unknown;
    try {
      readImport("umami", { name: "umami.csv", bytes }, { timeZone: "UTC" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MalformedImport);
    expect((error as MalformedImport).message).toBe("umami.csv, line 3: a quoted field is not closed");
  });
});
