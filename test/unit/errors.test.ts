import { describe, expect, it } from "vitest";
import { errorResponse, isDatabaseUnavailable } from "../../worker/lib/errors";
import { HttpProblem } from "../../worker/lib/problem";

describe("errorResponse", () => {
  it("turns a lost database, however wrapped, into 503 with Retry-After", async () => {
    const wrapped = new Error("Failed query: select 1", { cause: new Error("Network connection lost.") });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
    expect(isDatabaseUnavailable(new TypeError("fetch failed"))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error("x"), { code: "SERVER_ERROR" }))).toBe(true);
    const response = errorResponse(wrapped);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(response.headers.get("content-type")).toBe("application/problem+json");
  });

  it("keeps bugs and SQL errors as 500 without internals in the body", async () => {
    expect(isDatabaseUnavailable(new TypeError("x is undefined"))).toBe(false);
    const sqlError = Object.assign(new Error("UNIQUE constraint failed: sites.domain"), { code: "SQLITE_CONSTRAINT" });
    const response = errorResponse(sqlError);
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain("sites.domain");
  });

  it("passes problems through", async () => {
    const response = errorResponse(new HttpProblem(422, "name: too long", { field: "name" }));
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ type: "about:blank", title: "Unprocessable Content", status: 422, detail: "name: too long", field: "name" });
  });
});
