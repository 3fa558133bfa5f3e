/** The sessions list: newest first, paged by a keyset cursor that neither skips nor repeats a row, even among equal times. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listSessions, type SessionCursor } from "../../worker/domain/sessions";
import { insertSite } from "../../worker/domain/sites";
import { openDomainDb, type DomainDb } from "./helpers";

let d: DomainDb;
let site: string;
beforeAll(async () => {
  d = await openDomainDb();
  site = (await insertSite(d.db, { name: "Shop", domain: "shop.example", createdByKey: null })).site.id;
  const other = (await insertSite(d.db, { name: "Blog", domain: "blog.example", createdByKey: null })).site.id;
  // Seven sessions, three sharing one last_seen; one on another site.
  const rows: [string, string, number][] = [
    ["s1", site, 1000],
    ["s2", site, 3000],
    ["s3", site, 3000],
    ["s4", site, 3000],
    ["s5", site, 5000],
    ["s6", site, 2000],
    ["s7", site, 4000],
    ["x1", other, 9000],
  ];
  await d.client.batch(
    rows.map(([id, siteId, seen]) => ({
      sql: "INSERT INTO sessions (id, site_id, first_seen, last_seen, entry_path, pageviews) VALUES (?, ?, ?, ?, '/', 1)",
      args: [id, siteId, seen - 500, seen],
    })),
    "write",
  );
}, 60_000);
afterAll(() => d?.close());

describe("listSessions", () => {
  it("walks every session of the site once, newest first, ties by id", async () => {
    const seen: string[] = [];
    let after: SessionCursor | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await listSessions(d.db, site, { limit: 2, after });
      seen.push(...result.sessions.map((s) => s.id));
      if (!result.next) break;
      expect(result.sessions).toHaveLength(2);
      after = result.next;
    }
    expect(seen).toEqual(["s5", "s7", "s4", "s3", "s2", "s6", "s1"]);
  });

  it("says there is no next page when the last row is on this one", async () => {
    const all = await listSessions(d.db, site, { limit: 7 });
    expect(all.sessions).toHaveLength(7);
    expect(all.next).toBeNull();
    expect((await listSessions(d.db, site, { limit: 6 })).next).toEqual({ lastSeen: 1000 + 1000, id: "s6" });
  });
});
