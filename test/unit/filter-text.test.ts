/**
 * The dashboard's report filters as the URL keeps them (dashboard/src/state/filter-text.ts): the
 * API's own spelling, read back unchanged through a URL, at most three and one per dimension,
 * the dimensions the API takes, and what adding and flipping one does.
 */
import { describe, expect, it } from "vitest";
import {
  FILTER_LABEL,
  filterLabel,
  filterText,
  flipped,
  parseFilter,
  readFilters,
  withFilter,
  type Filter,
} from "../../dashboard/src/state/filter-text";
import { FILTER_DIMENSIONS, parseFilter as parseOnServer } from "../../worker/reports/explore/filters";

const de: Filter = { dimension: "country", negated: false, value: "DE" };
const notGoogle: Filter = { dimension: "source", negated: true, value: "Google" };
const launch: Filter = { dimension: "utm_campaign", negated: false, value: "50% off & more: a/b?c=d" };

describe("report filters in the URL", () => {
  it("are written as the API takes them, and read back unchanged through a URL's query", () => {
    const list = [de, notGoogle, launch];
    expect(list.map(filterText)).toEqual(["country:DE", "source!:Google", "utm_campaign:50% off & more: a/b?c=d"]);
    const search = new URLSearchParams();
    for (const text of list.map(filterText)) search.append("filter", text);
    expect(search.toString()).toBe(
      "filter=country%3ADE&filter=source%21%3AGoogle&filter=utm_campaign%3A50%25+off+%26+more%3A+a%2Fb%3Fc%3Dd",
    );
    expect(readFilters(new URLSearchParams(`?${search}`).getAll("filter"))).toEqual(list);
    // The server reads each the same way.
    expect(list.map(filterText).map(parseOnServer)).toEqual(list);
  });

  it("name every dimension the API filters on, and no other", () => {
    // Custom properties (`prop:NAME`) are named by their own name, below.
    expect(Object.keys(FILTER_LABEL).sort()).toEqual(FILTER_DIMENSIONS.filter((d) => d !== "prop:NAME").sort());
    expect(parseFilter("page:/pricing")).toEqual({ dimension: "page", negated: false, value: "/pricing" });
    expect(parseFilter("goal!:goal_abc")).toEqual({ dimension: "goal", negated: true, value: "goal_abc" });
    for (const text of ["country", "country:", ":DE", "planet:Mars", "constructor:x", "!:DE"])
      expect(parseFilter(text), text).toBeNull();
  });

  it("read a custom property's filter as the API does: the name ends at the first : after prop:", () => {
    const plan: Filter = { dimension: "prop:plan", negated: false, value: "pro:max" };
    const notMethod: Filter = { dimension: "prop:sign-up.method", negated: true, value: "google" };
    expect(parseFilter("prop:plan:pro:max")).toEqual(plan);
    expect(parseFilter("prop:sign-up.method!:google")).toEqual(notMethod);
    expect([plan, notMethod].map(filterText)).toEqual(["prop:plan:pro:max", "prop:sign-up.method!:google"]);
    expect([plan, notMethod].map(filterText).map(parseOnServer)).toEqual([plan, notMethod]);
    expect(filterLabel("prop:plan")).toBe("Property plan");
    expect(filterLabel("country")).toBe("Country");
    for (const text of [
      "prop:",
      "prop:plan",
      "prop:plan:",
      "prop::pro",
      "prop:!:pro",
      "prop:pl an:pro",
      `prop:${"x".repeat(65)}:v`,
    ])
      expect(parseFilter(text), text).toBeNull();
    // One per property name, each its own dimension.
    expect(readFilters(["prop:plan:pro", "prop:plan:free", "prop:method:google"]).map(filterText)).toEqual([
      "prop:plan:pro",
      "prop:method:google",
    ]);
  });

  it("keep the first three valid filters, one per dimension, leaving out what is no filter", () => {
    expect(readFilters(["nonsense", "country:DE", "country:FR", "source!:Google", "device:mobile", "os:Linux"])).toEqual([
      de,
      notGoogle,
      { dimension: "device", negated: false, value: "mobile" },
    ]);
  });

  it("add a filter in place of one on the same dimension, and refuse a fourth", () => {
    expect(withFilter([], "country", "DE")).toEqual([de]);
    expect(withFilter([de, notGoogle], "source", "Newsletter")).toEqual([
      de,
      { dimension: "source", negated: false, value: "Newsletter" },
    ]);
    expect(withFilter([de, notGoogle, launch], "country", "FR")).toEqual([{ ...de, value: "FR" }, notGoogle, launch]);
    expect(withFilter([de, notGoogle, launch], "device", "mobile")).toBeNull();
  });

  it("flip one filter between is and is not", () => {
    expect(flipped([de, notGoogle], 1)).toEqual([de, { ...notGoogle, negated: false }]);
    expect(flipped([de, notGoogle], 0).map(filterText)).toEqual(["country!:DE", "source!:Google"]);
  });
});
