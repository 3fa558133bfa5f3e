/**
 * The collector's durable memory, one instance per workerd (its storage is the local disk):
 *
 * - session salts: made, rotated and deleted on the schedule in salts.ts, by alarm;
 * - the highest s2s token version verified per site, so that a fresh isolate knows which
 *   MAC versions to try before it may touch the database (see token.ts).
 *
 * Where a salt is: workerd keeps this object's storage in one SQLite file,
 * `<do-storage>/wren-collector-state-v1/<object id>.sqlite` (with `-wal` and `-shm` while it is
 * open). Overwriting a value there does not remove the old bytes: workerd builds SQLite without
 * secure delete and refuses the pragma, so an overwritten salt stays in the WAL until a
 * checkpoint and can stay in free space of the file after it. Deleting a salt therefore deletes the
 * whole storage (`deleteAll()`: workerd closes the database and unlinks its file, the WAL going
 * with the close) and writes back only what is still needed — the salts in use and the token
 * versions — into a new file that never held the expired salt. Why not memory only: see
 * docs/collector.md ("Sessions and salts"); workerd evicts an idle object after about 10 s.
 */
import { DurableObject } from "cloudflare:workers";
import { toHex } from "../lib/crypto";
import type { CollectorWorkerEnv } from "./env";
import { nextChange, planSalts, type Salt } from "./salts";

export interface StateSnapshot {
  current: Salt;
  previous: Salt | null;
  /** Until when this snapshot holds: the next rotation or deletion. */
  validUntil: number;
  tokenVersions: Record<string, number>;
}

const SALTS_KEY = "salts";
const TOKEN_VERSIONS_KEY = "token-versions";

export class CollectorState extends DurableObject<CollectorWorkerEnv> {
  /** The salts and known token versions, rotating first if the schedule says so. */
  async snapshot(): Promise<StateSnapshot> {
    const { current, previous } = await this.rotate(Date.now());
    const tokenVersions = (await this.ctx.storage.get<Record<string, number>>(TOKEN_VERSIONS_KEY)) ?? {};
    return { current, previous, validUntil: nextChange(current, previous), tokenVersions };
  }

  /** Remembers that `version` of a site's token verified; versions only go up. */
  async noteTokenVersion(siteId: string, version: number): Promise<void> {
    const versions = (await this.ctx.storage.get<Record<string, number>>(TOKEN_VERSIONS_KEY)) ?? {};
    if ((versions[siteId] ?? 0) >= version) return;
    versions[siteId] = version;
    await this.ctx.storage.put(TOKEN_VERSIONS_KEY, versions);
  }

  override async alarm(): Promise<void> {
    await this.rotate(Date.now());
  }

  /** Applies the schedule: deletes expired salts, makes a current one, sets the next alarm. */
  private rotate(now: number): Promise<{ current: Salt; previous: Salt | null }> {
    // One rotation at a time, so two first requests cannot each make a "current" salt.
    return this.ctx.blockConcurrencyWhile(() => this.applySchedule(now));
  }

  private async applySchedule(now: number): Promise<{ current: Salt; previous: Salt | null }> {
    const stored = (await this.ctx.storage.get<Salt[]>(SALTS_KEY)) ?? [];
    const plan = planSalts(stored, now);
    let current = plan.current;
    if (!current || plan.expired.length > 0) {
      current ??= {
        id: toHex(crypto.getRandomValues(new Uint8Array(6))),
        secret: toHex(crypto.getRandomValues(new Uint8Array(32))),
        createdAt: now,
      };
      const keep = plan.previous ? [current, plan.previous] : [current];
      if (plan.expired.length > 0) {
        // An expired salt must leave the disk, not only the value: a new file without it
        // (see the file comment). deleteAll() takes the alarm too; it is set again below.
        const tokenVersions = await this.ctx.storage.get<Record<string, number>>(TOKEN_VERSIONS_KEY);
        await this.ctx.storage.deleteAll();
        await this.ctx.storage.put(
          tokenVersions ? { [SALTS_KEY]: keep, [TOKEN_VERSIONS_KEY]: tokenVersions } : { [SALTS_KEY]: keep },
        );
      } else {
        await this.ctx.storage.put(SALTS_KEY, keep);
      }
    }
    const wakeAt = nextChange(current, plan.previous);
    if ((await this.ctx.storage.getAlarm()) !== wakeAt) await this.ctx.storage.setAlarm(wakeAt);
    return { current, previous: plan.previous };
  }
}
