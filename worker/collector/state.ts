/**
 * The collector's durable memory on this instance (its storage is the local disk): the highest
 * s2s token version verified per site, so that a fresh isolate knows which MAC versions to try
 * before it may touch the database (see token.ts). Per instance is enough: the version a write
 * must match is checked in the database, inside the write transaction (writer.ts).
 *
 * Session salts used to live here too; they are in the database now (salt-store.ts), shared by
 * every instance. An object that still holds salts from before is cleared the way an expired
 * salt always was here: workerd builds SQLite without secure delete, so deleting the value would
 * leave its bytes in the file, and `deleteAll()` unlinks the file instead; the token versions
 * are written back into a new one.
 */
import { DurableObject } from "cloudflare:workers";
import type { CollectorWorkerEnv } from "./env";

const TOKEN_VERSIONS_KEY = "token-versions";
/** Where salts were kept before they moved to the database. */
const LEGACY_SALTS_KEY = "salts";

export class CollectorState extends DurableObject<CollectorWorkerEnv> {
  private cleared: Promise<void> | undefined;

  /** The highest verified version per site. */
  async tokenVersions(): Promise<Record<string, number>> {
    await this.clearLegacySalts();
    return (await this.ctx.storage.get<Record<string, number>>(TOKEN_VERSIONS_KEY)) ?? {};
  }

  /** Remembers that `version` of a site's token verified; versions only go up. */
  async noteTokenVersion(siteId: string, version: number): Promise<void> {
    await this.clearLegacySalts();
    const versions = (await this.ctx.storage.get<Record<string, number>>(TOKEN_VERSIONS_KEY)) ?? {};
    if ((versions[siteId] ?? 0) >= version) return;
    versions[siteId] = version;
    await this.ctx.storage.put(TOKEN_VERSIONS_KEY, versions);
  }

  /** An alarm set by the old salt schedule: clear what it was for and let it lapse. */
  override async alarm(): Promise<void> {
    await this.clearLegacySalts();
  }

  private clearLegacySalts(): Promise<void> {
    this.cleared ??= this.ctx
      .blockConcurrencyWhile(async () => {
        if ((await this.ctx.storage.get(LEGACY_SALTS_KEY)) === undefined) return;
        const tokenVersions = await this.ctx.storage.get<Record<string, number>>(TOKEN_VERSIONS_KEY);
        await this.ctx.storage.deleteAll();
        if (tokenVersions) await this.ctx.storage.put(TOKEN_VERSIONS_KEY, tokenVersions);
      })
      .catch((error: unknown) => {
        this.cleared = undefined;
        throw error;
      });
    return this.cleared;
  }
}
