/**
 * Deployment markers: the operator's own record of each release, from `POST /api/v1/deployments`
 * or the inbound deployment webhook, each with the smoke-test conversions that belong to it.
 * Operator data: shown at once and exactly, no k-anonymity filter. Nothing about the person who
 * deployed is kept.
 *
 * - **Idempotent.** A marker's `external_id` is unique per site: the same one again is the same
 *   marker, unchanged (`created: false`). A Standard Webhooks delivery's `webhook-id` is unique
 *   per site too, so a replayed delivery finds its marker whatever its body says.
 * - **Smoke conversions beside their marker.** Each marker lists the smoke-test conversions
 *   that name it (by id, external_id or version) or that came after it and before the next
 *   marker: the rules are in smoke-conversions.ts.
 *
 * Reads take either handle: the api's `Database` or the reports' read-only one (`ReadOnlyDatabase`),
 * and run as read-only transactions.
 */
import type { Row } from "@libsql/client/web";
import { and, eq } from "drizzle-orm";
import type { Database } from "../lib/db";
import { newId } from "../lib/ids";
import { HttpProblem } from "../lib/problem";
import { readOnly, type ReadOnlyDatabase } from "../lib/read-only";
import { deployments, type DeploymentSource } from "../lib/schema";
import type { DeploymentFields } from "./schemas";
import { addDays, startOfLocalDay } from "../reports/timezone";
import { smokeByMarker } from "./smoke-conversions";
import { requireSite } from "./sites";
import { now as serviceNow } from "../lib/clock";

export interface SmokeConversion {
  /** The caller's `id` of the conversion, as sent (null when it sent none). */
  id: string | null;
  /** The smoke-test goal's id. */
  goal: string;
  at: string;
  /** Whether it was attached to a session seen in the last 24 hours. */
  attached: boolean;
}

export interface DeploymentMarker {
  id: string;
  site: string;
  version: string;
  environment: string;
  external_id: string;
  description: string | null;
  url: string | null;
  deployed_at: string;
  source: "api" | "github" | "webhook";
  created_at: string;
  /** Its smoke-test conversions, oldest first (at most SMOKE_PER_MARKER). */
  smoke: SmokeConversion[];
}

/** What reads accept: the api's database handle or the reports' read-only one. */
export type DeploymentReader = Database | ReadOnlyDatabase;

export const DEFAULT_ENVIRONMENT = "production";
export { SMOKE_PER_MARKER } from "./smoke-conversions";

const COLUMNS = "id, site_id, version, environment, external_id, description, url, source, ts, created_at";

interface DeploymentRow {
  id: string;
  siteId: string;
  version: string;
  environment: string;
  externalId: string;
  description: string | null;
  url: string | null;
  source: DeploymentSource;
  ts: number;
  createdAt: number;
}

function reader(db: DeploymentReader): ReadOnlyDatabase {
  return "$client" in db ? readOnly(db.$client) : db;
}

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

function fromRow(r: Row): DeploymentRow {
  return {
    id: String(r.id),
    siteId: String(r.site_id),
    version: String(r.version),
    environment: String(r.environment),
    externalId: String(r.external_id),
    description: text(r.description),
    url: text(r.url),
    source: String(r.source) as DeploymentSource,
    ts: Number(r.ts),
    createdAt: Number(r.created_at),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

function toMarker(row: DeploymentRow, smoke: SmokeConversion[]): DeploymentMarker {
  return {
    id: row.id,
    site: row.siteId,
    version: row.version,
    environment: row.environment,
    external_id: row.externalId,
    description: row.description,
    url: row.url,
    deployed_at: iso(row.ts),
    source: row.source,
    created_at: iso(row.createdAt),
    smoke,
  };
}

async function withSmoke(db: DeploymentReader, siteId: string, rows: DeploymentRow[]): Promise<DeploymentMarker[]> {
  if (rows.length === 0) return [];
  const lists = await smokeByMarker(reader(db), siteId, rows);
  return rows.map((m) => toMarker(m, lists.get(m.id) ?? []));
}

/** The site's latest marker deployed at or before `atOrBeforeMs`, with its smoke conversions. */
export async function latestDeployment(
  db: DeploymentReader,
  siteId: string,
  atOrBeforeMs: number,
): Promise<DeploymentMarker | null> {
  const rs = await reader(db).query({
    sql: `SELECT ${COLUMNS} FROM deployments WHERE site_id = ? AND ts <= ? ORDER BY ts DESC, id DESC LIMIT 1`,
    args: [siteId, atOrBeforeMs],
  });
  const row = rs.rows[0];
  return row ? (await withSmoke(db, siteId, [fromRow(row)]))[0]! : null;
}

/** The site's marker with this id, with its smoke conversions; null when the site has none such. */
export async function findDeployment(db: DeploymentReader, siteId: string, id: string): Promise<DeploymentMarker | null> {
  const rs = await reader(db).query({
    sql: `SELECT ${COLUMNS} FROM deployments WHERE id = ? AND site_id = ?`,
    args: [id, siteId],
  });
  const row = rs.rows[0];
  return row ? (await withSmoke(db, siteId, [fromRow(row)]))[0]! : null;
}

/** The 404 for a marker that is not there (or not the caller's to see): one text. */
function deploymentNotFound(id: string): HttpProblem {
  return new HttpProblem(404, `No deployment ${id}.`, { field: "id" });
}

/**
 * The marker with this id when `mayRead(site)` allows its site, else a 404 with the same text
 * as for an id nothing has (a key learns nothing about other sites' markers).
 */
export async function requireDeployment(
  db: DeploymentReader,
  id: string,
  mayRead: (siteId: string) => boolean,
): Promise<DeploymentMarker> {
  const rs = await reader(db).query({ sql: "SELECT site_id FROM deployments WHERE id = ?", args: [id] });
  const siteId = rs.rows[0] ? String(rs.rows[0].site_id) : null;
  const marker = siteId !== null && mayRead(siteId) ? await findDeployment(db, siteId, id) : null;
  if (!marker) throw deploymentNotFound(id);
  return marker;
}

/** Deletes the marker (its smoke conversions stay: they are the conversions', and find another marker). */
export async function deleteDeployment(db: Database, id: string, mayWrite: (siteId: string) => boolean): Promise<void> {
  const row = await db.query.deployments.findFirst({ columns: { siteId: true }, where: eq(deployments.id, id) });
  if (!row || !mayWrite(row.siteId)) throw deploymentNotFound(id);
  await db.delete(deployments).where(and(eq(deployments.id, id), eq(deployments.siteId, row.siteId)));
}

export interface DeploymentInput {
  version: string;
  environment?: string | undefined;
  /** Default `version:environment`. */
  externalId?: string | undefined;
  description?: string | null | undefined;
  url?: string | null | undefined;
  /** Default now; a time ahead of now (within the allowed skew) is stored as now. */
  deployedAt?: number | undefined;
  source: DeploymentSource;
  /** The Standard Webhooks delivery that made it, so a replay finds it. */
  webhookId?: string | null | undefined;
}

/** A marker's input from a body the API, the CLI or a webhook validated (deploymentHookBody's fields). */
export function deploymentInput(body: DeploymentFields, source: DeploymentSource): DeploymentInput {
  return {
    version: body.version,
    environment: body.environment,
    externalId: body.external_id,
    description: body.description,
    url: body.url,
    deployedAt: body.deployed_at === undefined ? undefined : Date.parse(body.deployed_at),
    source,
  };
}

/**
 * Records a marker on an existing site (404 naming `siteField` otherwise). The same external_id
 * — or the same webhook id — again returns the marker that has it, unchanged, with `created: false`.
 */
export async function recordDeployment(
  db: Database,
  siteId: string,
  input: DeploymentInput,
  siteField = "site",
): Promise<{ marker: DeploymentMarker; created: boolean }> {
  await requireSite(db, siteId, siteField);
  const now = serviceNow();
  const environment = input.environment ?? DEFAULT_ENVIRONMENT;
  const externalId = input.externalId ?? `${input.version}:${environment}`;
  const webhookId = input.webhookId ?? null;
  const inserted = await db
    .insert(deployments)
    .values({
      id: newId("dep"),
      siteId,
      version: input.version,
      environment,
      externalId,
      webhookId,
      description: input.description ?? null,
      url: input.url ?? null,
      source: input.source,
      ts: Math.min(input.deployedAt ?? now, now),
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: deployments.id });
  const created = inserted[0]?.id;
  const id = created ?? (await markerIdOf(db, siteId, { webhookId, externalId }));
  if (!id) throw new Error("deployment insert conflicted but no marker matches");
  const marker = await findDeployment(db, siteId, id);
  if (!marker) throw new Error("deployment marker vanished while it was recorded");
  return { marker, created: created !== undefined };
}

/**
 * The id of the site's marker that a delivery's `webhookId` names, else the one with its
 * `externalId` (each only when given); undefined when neither matches.
 */
export async function markerIdOf(
  db: Database,
  siteId: string,
  keys: { webhookId?: string | null; externalId?: string },
): Promise<string | undefined> {
  const byWebhook =
    keys.webhookId != null
      ? await db.query.deployments.findFirst({
          columns: { id: true },
          where: and(eq(deployments.siteId, siteId), eq(deployments.webhookId, keys.webhookId)),
        })
      : undefined;
  if (byWebhook || keys.externalId === undefined) return byWebhook?.id;
  const byExternal = await db.query.deployments.findFirst({
    columns: { id: true },
    where: and(eq(deployments.siteId, siteId), eq(deployments.externalId, keys.externalId)),
  });
  return byExternal?.id;
}

/** A position in a list: the last marker's (deployed_at, id). */
export interface DeploymentCursor {
  ts: number;
  id: string;
}

/** `1795444125735.dep_…`: the last listed marker's deployed_at (ms) and id. */
export function encodeDeploymentCursor(cursor: DeploymentCursor): string {
  return `${cursor.ts}.${cursor.id}`;
}

export function decodeDeploymentCursor(text: string): DeploymentCursor | null {
  const match = /^(\d{1,16})\.(dep_[A-Za-z0-9_-]{1,40})$/.exec(text);
  return match ? { ts: Number(match[1]), id: match[2]! } : null;
}

export interface DeploymentListOptions {
  /** deployed_at bounds, ms, inclusive. */
  from?: number | undefined;
  to?: number | undefined;
  limit: number;
  after?: DeploymentCursor | undefined;
}

/** A page of the site's markers, newest first, each with its smoke conversions. */
export async function listDeployments(
  db: DeploymentReader,
  siteId: string,
  options: DeploymentListOptions,
): Promise<{ deployments: DeploymentMarker[]; next: DeploymentCursor | null }> {
  const after = options.after;
  const rs = await reader(db).query({
    sql:
      `SELECT ${COLUMNS} FROM deployments WHERE site_id = ?1 AND ts >= ?2 AND ts <= ?3 ` +
      "AND (?4 IS NULL OR ts < ?4 OR (ts = ?4 AND id < ?5)) ORDER BY ts DESC, id DESC LIMIT ?6",
    args: [
      siteId,
      options.from ?? 0,
      options.to ?? Number.MAX_SAFE_INTEGER,
      after?.ts ?? null,
      after?.id ?? null,
      options.limit + 1,
    ],
  });
  const rows = rs.rows.map(fromRow);
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  return {
    deployments: await withSmoke(db, siteId, page),
    next: rows.length > options.limit && last ? { ts: last.ts, id: last.id } : null,
  };
}

/** A bound of a list: a date (a whole local day in the site's zone) or an instant. */
function boundOf(value: string, timeZone: string, end: boolean): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value))
    return end ? startOfLocalDay(timeZone, addDays(value, 1)) - 1 : startOfLocalDay(timeZone, value);
  return Date.parse(value);
}

/**
 * A page of an existing site's markers (404 on `site` otherwise), newest first, between `from`
 * and `to` (inclusive): dates are whole days in the site's time zone, date-times instants.
 */
export async function siteDeployments(
  db: Database,
  siteId: string,
  query: { from?: string | undefined; to?: string | undefined; limit: number; after?: DeploymentCursor | undefined },
): Promise<{ deployments: DeploymentMarker[]; next: DeploymentCursor | null }> {
  const site = await requireSite(db, siteId, "site");
  const from = query.from === undefined ? undefined : boundOf(query.from, site.timezone, false);
  const to = query.to === undefined ? undefined : boundOf(query.to, site.timezone, true);
  if (from !== undefined && to !== undefined && to < from)
    throw new HttpProblem(400, "to: must not be before from", { field: "to" });
  return listDeployments(db, siteId, { from, to, limit: query.limit, after: query.after });
}
