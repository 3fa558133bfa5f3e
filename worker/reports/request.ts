/**
 * What every report request does before computing: look the site up, resolve the period in
 * the site's time zone, bring the rollups up to date (catch-up), and negotiate the format.
 * The result names the report's scope (site, days, k) and the head every answer starts with.
 */
import type { Client } from "@libsql/client/web";
import { requireSite } from "../domain/sites";
import type { Database } from "../lib/db";
import { negotiate, type Format } from "./format";
import { resolvePeriod, type Period, type PeriodQuery } from "./period";
import { kAnonymity } from "./privacy";
import { catchUp, effectiveZone } from "./rollup";
import type { RollupScheduler } from "./scheduler";
import type { ReportScope } from "./scope";
import { startRollupScheduler } from "./start-scheduler";

/** The bindings a report reads. */
export interface ReportEnv {
  WREN_K_ANONYMITY?: string | null;
  ROLLUP_SCHEDULER?: DurableObjectNamespace<RollupScheduler>;
}

export interface ReportRequest {
  db: Database;
  env: ReportEnv;
  request: Request;
  execution: ExecutionContext;
}

export interface PreparedReport {
  /** The connection the report's queries read through. */
  client: Client;
  scope: ReportScope;
  period: Period;
  format: Format;
  /** The JSON body's head; CSV and NDJSON lines start with the same values (reply.ts). */
  head: { site: string; period: { from: string; to: string; days: number; timezone: string }; k: number };
}

/**
 * Prepares a report of `siteId` for the query's period. `check` may refuse a period the
 * report cannot cover (e.g. hourly points over too many days) before any catch-up runs.
 */
export async function prepareReport(
  { db, env, request, execution }: ReportRequest,
  siteId: string,
  query: PeriodQuery,
  check?: (period: Period) => void,
): Promise<PreparedReport> {
  startRollupScheduler(env.ROLLUP_SCHEDULER, execution);
  const site = await requireSite(db, siteId, "site");
  const period = resolvePeriod(query, effectiveZone(site.timezone));
  check?.(period);
  const k = kAnonymity(env.WREN_K_ANONYMITY);
  await catchUp(db.$client);
  return {
    client: db.$client,
    scope: { siteId, from: period.from, to: period.to, timeZone: period.timeZone, k },
    period,
    format: negotiate(request.headers.get("accept")),
    head: { site: siteId, period: { from: period.from, to: period.to, days: period.days, timezone: period.timeZone }, k },
  };
}
