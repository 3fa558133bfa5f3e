/**
 * The single writer: concurrent requests hand it their rows, and it stores everything that
 * arrived while the previous transaction was committing in one transaction (group commit).
 * Each caller's promise resolves only after that transaction has committed, so a 202 built
 * on it means the rows are in the database. A flush that fails for one request's rows is
 * retried request by request, so one bad request never costs the others their writes.
 */
import { DurableObject } from "cloudflare:workers";
import type { InStatement, ResultSet } from "@libsql/client/web";
import { database } from "../lib/db";
import { isDatabaseUnavailable } from "../lib/errors";
import type { CollectorWorkerEnv } from "./env";
import { tokenVersionsStatement, writeStatements, type IngestRequest } from "./rows";
import { EVENT_WINDOW_MS } from "./window";

export type IngestOutcome =
  | {
      ok: true;
      /** Keyed conversions stored by this request (the rest were already stored). */
      storedKeys: string[];
      /** Stored conversions that were attached to a session, by key. */
      attachedKeys: string[];
      /** Current token version per site asked for in `tokenSites` (absent: no such site). */
      tokenVersions: Record<string, number>;
    }
  | { ok: false; reason: "unavailable" | "rejected"; detail: string };

interface Pending {
  request: IngestRequest;
  resolve(outcome: IngestOutcome): void;
}

/** Rows per transaction; more waits for the next flush. */
const MAX_ROWS_PER_FLUSH = 4_000;

function rowCount(r: IngestRequest): number {
  return r.events.length + r.vitals.length + r.sessions.length + r.beacons.length + r.conversions.length + 1;
}

export class IngestWriter extends DurableObject<CollectorWorkerEnv> {
  private queue: Pending[] = [];
  private flushing = false;

  /** Stores the rows with those of concurrent callers; resolves after the commit. */
  ingest(request: IngestRequest): Promise<IngestOutcome> {
    return new Promise((resolve) => {
      this.queue.push({ request, resolve });
      if (!this.flushing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch: Pending[] = [];
        let rows = 0;
        while (this.queue.length > 0 && (batch.length === 0 || rows + rowCount(this.queue[0]!.request) <= MAX_ROWS_PER_FLUSH)) {
          const next = this.queue.shift()!;
          rows += rowCount(next.request);
          batch.push(next);
        }
        await this.flush(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async flush(batch: Pending[]): Promise<void> {
    try {
      const outcomes = await this.commit(batch.map((p) => p.request));
      batch.forEach((p, i) => p.resolve(outcomes[i]!));
    } catch (error) {
      if (isDatabaseUnavailable(error) || batch.length === 1) {
        for (const p of batch) p.resolve(failure(error));
        return;
      }
      // Something in the batch was refused: find whose, by committing each request alone.
      for (const p of batch) {
        try {
          p.resolve((await this.commit([p.request]))[0]!);
        } catch (single) {
          p.resolve(failure(single));
        }
      }
    }
  }

  /** One transaction for the requests' rows; the outcome of each, in order. */
  private async commit(requests: IngestRequest[]): Promise<IngestOutcome[]> {
    const now = Date.now();
    const guard = tokenVersionsStatement(requests.flatMap((r) => r.tokenSites));
    const writes = writeStatements(requests, now, EVENT_WINDOW_MS);
    const statements: InStatement[] = guard ? [guard, ...writes] : writes;
    if (statements.length === 0) return requests.map(() => success([], [], {}));
    const results = await database(this.env).$client.batch(statements, "write");

    const tokenVersions: Record<string, number> = {};
    if (guard) for (const row of results[0]!.rows) tokenVersions[String(row.id)] = Number(row.token_version);
    const stored = new Map<string, string | null>();
    for (const result of conversionResults(results, writes, guard !== null)) {
      for (const row of result.rows) {
        if (row.event_key !== null) stored.set(keyOf(String(row.site_id), String(row.event_key)), row.session_id === null ? null : String(row.session_id));
      }
    }
    // The first request (in VALUES order) to carry a key is the one that stored it.
    const claimed = new Set<string>();
    return requests.map((r) => {
      const storedKeys: string[] = [];
      const attachedKeys: string[] = [];
      for (const c of r.conversions) {
        if (c.key === null) continue;
        const key = keyOf(c.siteId, c.key);
        if (claimed.has(key) || !stored.has(key)) continue;
        claimed.add(key);
        storedKeys.push(c.key);
        if (stored.get(key) !== null) attachedKeys.push(c.key);
      }
      const versions: Record<string, number> = {};
      for (const site of r.tokenSites) if (site in tokenVersions) versions[site] = tokenVersions[site]!;
      return success(storedKeys, attachedKeys, versions);
    });
  }
}

function keyOf(siteId: string, eventKey: string): string {
  return `${siteId}\u0000${eventKey}`;
}

function conversionResults(results: ResultSet[], writes: InStatement[], guarded: boolean): ResultSet[] {
  const offset = guarded ? 1 : 0;
  return writes
    .map((statement, i) => ({ statement, result: results[i + offset]! }))
    .filter(({ statement }) => typeof statement !== "string" && statement.sql.startsWith("INSERT INTO conversions"))
    .map(({ result }) => result);
}

function success(storedKeys: string[], attachedKeys: string[], tokenVersions: Record<string, number>): IngestOutcome {
  return { ok: true, storedKeys, attachedKeys, tokenVersions };
}

function failure(error: unknown): IngestOutcome {
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { ok: false, reason: isDatabaseUnavailable(error) ? "unavailable" : "rejected", detail };
}
