/**
 * CSV formula injection (OWASP "CSV Injection"): text that a spreadsheet would run as a
 * formula is exported with a leading `'`; numbers, including negative ones, are exported as
 * they are. Also checks that the problem responses are never cached.
 */
import { describe, expect, it } from "vitest";
import { problem } from "../../worker/lib/problem";
import { csvCell, toCsv } from "../../worker/reports/format";

describe("csvCell", () => {
  it("prefixes text starting with = + - @ tab or CR with a single quote, then quotes per RFC 4180", () => {
    expect(csvCell('=HYPERLINK("http://evil.example","x")')).toBe(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-1")).toBe("'-1");
    expect(csvCell("@SUM(1)")).toBe("'@SUM(1)");
    expect(csvCell("\t=1")).toBe("'\t=1");
    expect(csvCell("\r=1")).toBe(`"'\r=1"`);
    expect(csvCell("-")).toBe("'-");
  });

  it("leaves numbers, ordinary text and formula characters after the first alone", () => {
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell(-0.5)).toBe("-0.5");
    expect(csvCell(0)).toBe("0");
    expect(csvCell(null)).toBe("");
    expect(csvCell("")).toBe("");
    expect(csvCell("/pricing")).toBe("/pricing");
    expect(csvCell("Sign up = win")).toBe("Sign up = win");
    expect(csvCell(" =1")).toBe(" =1");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell("2026-11-02")).toBe("2026-11-02");
  });
});

describe("toCsv", () => {
  it("escapes a hostile goal name and keeps a negative figure a number", () => {
    const row = {
      site: "site_x",
      goal: { id: "goal_1", name: '=HYPERLINK("http://127.0.0.1:9/x","click")', kind: "event" },
      delta: { value: -3, qualifier: "exact" },
      rate: { value: -0.5, qualifier: "estimated" },
    };
    expect(
      toCsv([row], ["site", "goal_id", "goal_name", "goal_kind", "delta", "delta_qualifier", "rate", "rate_qualifier"]),
    ).toBe(
      "site,goal_id,goal_name,goal_kind,delta,delta_qualifier,rate,rate_qualifier\r\n" +
        `site_x,goal_1,"'=HYPERLINK(""http://127.0.0.1:9/x"",""click"")",event,-3,exact,-0.5,estimated\r\n`,
    );
  });
});

describe("problem", () => {
  it("is never cached, whatever headers the caller adds", () => {
    const response = problem(401, "no key", { headers: { "www-authenticate": "Bearer" } });
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
    expect(response.headers.get("content-type")).toBe("application/problem+json");
  });
});
