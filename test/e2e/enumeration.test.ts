/**
 * What one tenant can learn about others, pinned as decided (docs/operations.md, Security):
 *
 * - `POST /api/v1/sites` with a domain another site holds is a `409` on `domain` — a domain is
 *   registered once, so that much is unavoidable — and the same text whoever holds it (the
 *   operator or another tenant's key): no site id, key or token, nothing written.
 * - `POST /e` tells an unknown site id (`403`, field `site`) from a known site whose origin is
 *   refused (`403`, field `origin`). Kept: a site id is 16 random characters (not guessable)
 *   and public in every page that carries the snippet, so the difference reveals nothing a
 *   page view does not, and it tells an operator with a mistyped id what is wrong.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiFixture, type ApiFixture } from "../api/fixtures";

let f: ApiFixture;

beforeAll(async () => {
  f = await apiFixture();
}, 60_000);
afterAll(() => f?.close());

async function siteCount(): Promise<number> {
  return Number((await f.database().execute("SELECT count(*) AS n FROM sites")).rows[0]!.n);
}

describe("a tenant re-posting a domain another site holds", () => {
  it("gets the same 409 on domain whoever holds it, naming neither site nor key, and writes nothing", async () => {
    const operatorSite = await f.makeSite("operator.example");
    const tenantA = await f.makeKey(["write:sites"]);
    const made = await tenantA.call("POST", "/api/v1/sites", { name: "A", domain: "tenant-a.example" });
    expect(made.status, made.text).toBe(201);
    const tenantB = await f.makeKey(["write:sites", "read:sites"]);
    const before = await siteCount();
    for (const domain of ["operator.example", "tenant-a.example"]) {
      const res = await tenantB.call("POST", "/api/v1/sites", { name: "B", domain });
      expect([res.status, res.headers.get("content-type"), res.body]).toEqual([
        409,
        "application/problem+json",
        {
          type: "about:blank",
          title: "Conflict",
          status: 409,
          detail: `The domain ${domain} is already registered to another site.`,
          field: "domain",
        },
      ]);
      for (const secret of [operatorSite.id, made.body.id, tenantA.id, "s2s_token", "registered_by"])
        expect(res.text).not.toContain(secret);
    }
    expect(await siteCount()).toBe(before);
    // Nor does B's list show either site.
    expect((await tenantB.call("GET", "/api/v1/sites")).body.sites).toEqual([]);
  });
});

describe("a beacon for a site", () => {
  async function beacon(site: string, origin: string) {
    const res = await fetch(`${f.stack.url}/e`, {
      method: "POST",
      headers: {
        "content-type": "text/plain",
        origin,
        "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36",
      },
      body: JSON.stringify({ site, session: "abcdefghijklmnopqrstuv", events: [{ type: "pageview", path: "/" }] }),
    });
    return { status: res.status, type: res.headers.get("content-type"), body: await res.json() };
  }

  it("says an unknown site is unknown (403 site) and a refused origin is refused (403 origin), writing nothing", async () => {
    const site = await f.makeSite("beacons.example");
    const events = async () => Number((await f.database().execute("SELECT count(*) AS n FROM events")).rows[0]!.n);
    const before = await events();
    expect(await beacon("site_AAAAAAAAAAAAAAAA", "https://evil.example")).toEqual({
      status: 403,
      type: "application/problem+json",
      body: {
        type: "about:blank",
        title: "Forbidden",
        status: 403,
        detail: "site: site_AAAAAAAAAAAAAAAA is not a site of this collector.",
        field: "site",
      },
    });
    expect(await beacon(site.id, "https://evil.example")).toEqual({
      status: 403,
      type: "application/problem+json",
      body: {
        type: "about:blank",
        title: "Forbidden",
        status: 403,
        detail: "Beacons for this site are accepted only from its own domain, not from evil.example.",
        field: "origin",
      },
    });
    expect(await events()).toBe(before);
  });
});
