/**
 * Which deployment marker each smoke-test conversion belongs to (`smoke_conversions`, written by
 * the collector beside each s2s conversion of a smoke-test goal, with the caller's `id`):
 *
 * 1. the marker whose id, else external_id, else version equals the conversion's `id` (of several
 *    markers of one version: the latest deployed at or before the conversion, else the earliest);
 * 2. otherwise the latest marker deployed at or before the conversion (until the next marker).
 *
 * Markers are ordered by (deployed_at, id), so ties go one way everywhere. Each marker lists at
 * most SMOKE_PER_MARKER conversions, oldest first.
 */
import type { ReadOnlyDatabase } from "../lib/read-only";
import type { SmokeConversion } from "./deployments";

/** Smoke conversions listed per marker, oldest first. */
export const SMOKE_PER_MARKER = 100;

/** What the rules read of a marker. */
export interface MarkerNames {
  id: string;
  version: string;
  externalId: string;
  ts: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** (deployed_at, id) order: -1, 0 or 1. */
function compareMarkers(a: { ts: number; id: string }, b: { ts: number; id: string }): number {
  if (a.ts !== b.ts) return a.ts < b.ts ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

interface SmokeRow {
  conversionId: number;
  externalId: string | null;
  goal: string;
  ts: number;
  attached: boolean;
}

/** Of several markers one conversion's id names, the one it belongs to. */
function pickNamed(named: { ts: number; id: string }[], ts: number): string {
  const sorted = [...named].sort(compareMarkers);
  const before = sorted.filter((m) => m.ts <= ts);
  return (before[before.length - 1] ?? sorted[0]!).id;
}

/**
 * The smoke conversions of each of these markers (of one site, a run of consecutive markers in
 * (deployed_at, id) order), by marker id. Two round trips: the next marker after the run and
 * the conversions that may belong to the run (named by one of its markers' names, or stamped
 * between its oldest marker and the next one), then the markers of the site any of those
 * conversions names, which take them first.
 */
export async function smokeByMarker(
  r: ReadOnlyDatabase,
  siteId: string,
  rows: MarkerNames[],
): Promise<Map<string, SmokeConversion[]>> {
  const lists = new Map<string, SmokeConversion[]>(rows.map((m) => [m.id, []]));
  if (rows.length === 0) return lists;
  const ordered = [...rows].sort(compareMarkers);
  const oldest = ordered[0]!;
  const newest = ordered[ordered.length - 1]!;
  const names = JSON.stringify([...new Set(rows.flatMap((m) => [m.id, m.version, m.externalId]))]);
  const [nextRows, smokeRows] = await r.queryAll([
    {
      sql: "SELECT ts FROM deployments WHERE site_id = ?1 AND (ts > ?2 OR (ts = ?2 AND id > ?3)) ORDER BY ts, id LIMIT 1",
      args: [siteId, newest.ts, newest.id],
    },
    {
      sql:
        "SELECT conversion_id, external_id, goal_id, ts, attached FROM smoke_conversions WHERE site_id = ?1 AND (" +
        "(ts >= ?2 AND ts < coalesce((SELECT ts FROM deployments WHERE site_id = ?1 AND (ts > ?3 OR (ts = ?3 AND id > ?4)) ORDER BY ts, id LIMIT 1), 9007199254740991)) " +
        "OR external_id IN (SELECT value FROM json_each(?5))) ORDER BY ts, conversion_id",
      args: [siteId, oldest.ts, newest.ts, newest.id, names],
    },
  ]);
  const nextTs = nextRows!.rows[0] ? Number(nextRows!.rows[0].ts) : Number.POSITIVE_INFINITY;
  const smoke: SmokeRow[] = smokeRows!.rows.map((s) => ({
    conversionId: Number(s.conversion_id),
    externalId: text(s.external_id),
    goal: String(s.goal_id),
    ts: Number(s.ts),
    attached: Number(s.attached) === 1,
  }));

  // Markers of the site that a conversion names, by each of their three names (priority order).
  const spoken = [...new Set(smoke.map((s) => s.externalId).filter((id): id is string => id !== null))];
  const named = new Map<string, { byId: string | null; byExternal: string | null; byVersion: { ts: number; id: string }[] }>();
  if (spoken.length > 0) {
    const list = JSON.stringify(spoken);
    const found = await r.query({
      sql:
        "SELECT id, version, external_id, ts FROM deployments WHERE site_id = ?1 AND (id IN (SELECT value FROM json_each(?2)) " +
        "OR external_id IN (SELECT value FROM json_each(?2)) OR version IN (SELECT value FROM json_each(?2)))",
      args: [siteId, list],
    });
    const entry = (name: string) => {
      let e = named.get(name);
      if (!e) named.set(name, (e = { byId: null, byExternal: null, byVersion: [] }));
      return e;
    };
    for (const m of found.rows) {
      const marker = { id: String(m.id), ts: Number(m.ts) };
      entry(marker.id).byId = marker.id;
      entry(String(m.external_id)).byExternal = marker.id;
      entry(String(m.version)).byVersion.push(marker);
    }
  }

  for (const s of smoke) {
    const naming = s.externalId === null ? undefined : named.get(s.externalId);
    let owner: string | undefined;
    if (naming?.byId) owner = naming.byId;
    else if (naming?.byExternal) owner = naming.byExternal;
    else if (naming && naming.byVersion.length > 0) owner = pickNamed(naming.byVersion, s.ts);
    else if (s.ts >= oldest.ts && s.ts < nextTs) {
      // The latest of these markers deployed at or before it (none after it in the run does).
      for (const m of ordered) if (m.ts <= s.ts) owner = m.id;
    }
    const list = owner === undefined ? undefined : lists.get(owner);
    if (list && list.length < SMOKE_PER_MARKER)
      list.push({ id: s.externalId, goal: s.goal, at: iso(s.ts), attached: s.attached });
  }
  return lists;
}
