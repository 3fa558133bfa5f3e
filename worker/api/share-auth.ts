/**
 * A shared dashboard link's reader (auth kind `share`): the token travels as
 * `Authorization: Share <token>` (the share page's script takes it from its own path), never as
 * a Bearer key, so a link is refused by every route that does not list it here. A password link
 * also needs its unlock cookie (domain/shares.ts), except on the unlock route itself.
 *
 * SHARE_READABLE names, by operation id, the only key routes a link may call: the reads a
 * `read:reports` key on the site may make that the share page shows (its reports, the goal and
 * prop names its filters offer). Not the site record (its creation time, snippet and allowlist),
 * not deployments, the sessions list, keys, settings or alerts: a reader learns no more than the
 * reports say.
 */
import type { IRequest } from "itty-router";
import type { Caller } from "../domain/access";
import { findOpenShare, isUnlocked, shareCaller, type ShareRow } from "../domain/shares";
import type { Database } from "../lib/db";
import { HttpProblem } from "../lib/problem";
import type { ApiEnv } from "./env";

export const SHARE_READABLE: ReadonlySet<string> = new Set([
  "getOverview",
  "getTimeseries",
  "getPagesReport",
  "getBreakdownReport",
  "getConversionsReport",
  "getFunnelReport",
  "getAggregateReport",
  "getQueryResults",
  "getVitalsReport",
  "getLive",
  "getSiteArrivals",
  "listGoals",
  "listSiteProps",
]);

const SHARE = /^Share\s+(\S+)\s*$/i;
const CHALLENGE = { "www-authenticate": 'Share realm="wren"' };

/** Whether the request presents a share link rather than a key. */
export function presentsShare(request: Request): boolean {
  return /^Share\s/i.test(request.headers.get("authorization") ?? "");
}

/** The open link the request presents (header, else the route's `:token`), or a 401 that says the same for every closed one. */
export async function requireShare(request: Request, db: Database): Promise<ShareRow> {
  const header = request.headers.get("authorization");
  const token = (header ? SHARE.exec(header)?.[1] : undefined) ?? (request as IRequest).params?.token;
  const share = token ? await findOpenShare(db, token) : undefined;
  if (!share) {
    throw new HttpProblem(401, "The share link is not valid: it may have been revoked or have expired.", {
      field: "authorization",
      headers: CHALLENGE,
    });
  }
  return share;
}

/** The reader of an open link; a password link must be unlocked unless `beforeUnlock`. */
export async function authenticateShare(request: Request, db: Database, env: ApiEnv, beforeUnlock = false): Promise<Caller> {
  const share = await requireShare(request, db);
  if (!beforeUnlock && !(await isUnlocked(request, env.WREN_SECRET, share))) {
    throw new HttpProblem(401, "This shared dashboard asks for its password first (POST /share/{token}/unlock).", {
      field: "password",
      headers: CHALLENGE,
    });
  }
  return shareCaller(share);
}
