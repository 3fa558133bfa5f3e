/**
 * How a query is read before its schema sees it (api/params.ts queryValues) and how a filter's
 * value is spelt (reports/dimensions.ts filterValue): a repeated parameter is refused unless the
 * schema makes it a list, and a value of a fixed set is read in the collector's spelling. The
 * routes' answers are tested on the real stack in test/reports/api.test.ts.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { queryValues } from "../../worker/api/params";
import { HttpProblem } from "../../worker/lib/problem";
import { filterValue } from "../../worker/reports/dimensions";

const schema = z.strictObject({
  site: z.string(),
  limit: z.coerce.number().default(10),
  tags: z.array(z.string()).optional(),
});
const read = (query: string) => queryValues(new URL(`http://wren.test/x?${query}`), schema);

function refusal(query: string): { status: number; field?: string } {
  try {
    read(query);
  } catch (error) {
    if (error instanceof HttpProblem) return { status: error.status, field: error.extra.field };
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("queryValues", () => {
  it("gives each parameter its one value, and a list parameter every value in order", () => {
    expect(read("site=a&limit=5")).toEqual({ site: "a", limit: "5" });
    expect(read("site=a&tags=x&tags=y&tags=x")).toEqual({ site: "a", tags: ["x", "y", "x"] });
    expect(read("tags=x")).toEqual({ tags: ["x"] });
  });

  it("refuses any other parameter given twice with a 400 naming it, even with the same value", () => {
    expect(refusal("site=a&site=b")).toEqual({ status: 400, field: "site" });
    expect(refusal("site=a&limit=1&limit=1")).toEqual({ status: 400, field: "limit" });
    expect(refusal("site=a&colour=red&colour=blue")).toEqual({ status: 400, field: "colour" });
  });
});

describe("filterValue", () => {
  it("reads countries in upper case and refuses what is no ISO 3166-1 alpha-2 code", () => {
    expect(filterValue("country", "us")).toEqual({ value: "US" });
    expect(filterValue("country", "De")).toEqual({ value: "DE" });
    expect(filterValue("country", "usa")).toHaveProperty("error");
    expect(filterValue("country", "U1")).toHaveProperty("error");
  });

  it("reads devices in lower case and refuses any other", () => {
    expect(filterValue("device", "Mobile")).toEqual({ value: "mobile" });
    expect(filterValue("device", "TABLET")).toEqual({ value: "tablet" });
    expect(filterValue("device", "phone")).toHaveProperty("error");
  });

  it("reads a known source by its name and any other as a lower-case host", () => {
    expect(filterValue("source", "google")).toEqual({ value: "Google" });
    expect(filterValue("source", "HACKER NEWS")).toEqual({ value: "Hacker News" });
    expect(filterValue("source", "direct / none")).toEqual({ value: "Direct / None" });
    expect(filterValue("source", "News.Example.COM")).toEqual({ value: "news.example.com" });
  });

  it("keeps the site's own text and the breakdown's browser and OS names exactly", () => {
    expect(filterValue("utm_campaign", "Launch")).toEqual({ value: "Launch" });
    expect(filterValue("entry_page", "/Pricing")).toEqual({ value: "/Pricing" });
    expect(filterValue("browser", "Chrome 131")).toEqual({ value: "Chrome 131" });
    expect(filterValue("os", "macOS 14")).toEqual({ value: "macOS 14" });
  });
});
