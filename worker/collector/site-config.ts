/**
 * What the collector needs to know about a site: its origin allowlist, its goals and the names
 * of the custom properties it keeps (site_props). Read
 * with one batch and kept in the isolate for a few seconds, so steady beacon traffic costs
 * no reads; a goal created a moment ago is picked up by `refresh` (s2s) or within the TTL.
 */
import { libsqlClient } from "../lib/libsql";
import { isSmokeTestGoal, type GoalKind } from "../lib/schema";
import type { CollectorWorkerEnv } from "./env";
import type { GoalRule } from "./goals";
import { canonicalHostname } from "./origin";

export const SITE_CONFIG_TTL_MS = 5_000;
const MAX_CACHED_SITES = 10_000;

export interface SiteConfig {
  id: string;
  allowlist: string[];
  /** The s2s token version in force when this was read. */
  tokenVersion: number;
  goals: GoalRule[];
  /** The custom property names the site keeps (collector/props.ts); a name added a moment ago is picked up within the TTL. */
  props: ReadonlySet<string>;
}

const cache = new Map<string, { config: SiteConfig | null; loadedAt: number }>();

async function load(env: CollectorWorkerEnv, siteId: string): Promise<SiteConfig | null> {
  const [siteRows, goalRows, propRows] = await libsqlClient(env).batch(
    [
      { sql: "SELECT id, allowlist, token_version FROM sites WHERE id = ?", args: [siteId] },
      { sql: "SELECT id, kind, match, threshold, purpose, currency FROM goals WHERE site_id = ? ORDER BY id", args: [siteId] },
      { sql: "SELECT name FROM site_props WHERE site_id = ?", args: [siteId] },
    ],
    "read",
  );
  const site = siteRows?.rows[0];
  if (!site) return null;
  let allowlist: string[] = [];
  try {
    const parsed: unknown = JSON.parse(String(site.allowlist));
    if (Array.isArray(parsed)) allowlist = parsed.filter((h): h is string => typeof h === "string").map(canonicalHostname);
  } catch {
    allowlist = [];
  }
  const goals = (goalRows?.rows ?? []).map((g) => ({
    id: String(g.id),
    kind: String(g.kind) as GoalKind,
    match: String(g.match),
    threshold: Number(g.threshold),
    smoke: isSmokeTestGoal({ kind: String(g.kind), purpose: g.purpose === null ? null : String(g.purpose) }),
    currency: g.currency === null || g.currency === undefined ? null : String(g.currency),
  }));
  const props = new Set((propRows?.rows ?? []).map((r) => String(r.name)));
  return { id: String(site.id), allowlist, tokenVersion: Number(site.token_version), goals, props };
}

/** The site's config, at most SITE_CONFIG_TTL_MS old (or freshly read with `refresh`). */
export async function siteConfig(
  env: CollectorWorkerEnv,
  siteId: string,
  options: { refresh?: boolean } = {},
): Promise<SiteConfig | null> {
  const now = Date.now();
  const hit = cache.get(siteId);
  if (hit && !options.refresh && now - hit.loadedAt < SITE_CONFIG_TTL_MS) return hit.config;
  const config = await load(env, siteId);
  if (cache.size >= MAX_CACHED_SITES) cache.clear();
  cache.set(siteId, { config, loadedAt: now });
  return config;
}
