/**
 * For the tests that run inside workerd: a real embedded libSQL server on a free port,
 * migrated, with one admin key, and the workers built. Its URL and the key reach the
 * miniflare config and the tests through vitest's provide/inject.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { applyMigrations, openDatabase } from "../../cli/database";
import { loadSettings } from "../../cli/settings";
import { issueKey } from "../../worker/domain/apikeys";
import { buildWorkers } from "../../scripts/build";
import { startHranaServer } from "../../server/hrana/index";

declare module "vitest" {
  export interface ProvidedContext {
    libsqlUrl: string;
    libsqlToken: string;
    adminKey: string;
    secret: string;
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "wren-workers-"));
  // A token, as `wren start` always sets one: the workers must send it.
  const token = randomBytes(32).toString("base64url");
  const server = await startHranaServer({ file: join(dir, "wren.db"), port: 0, authToken: token });
  const db = await openDatabase(loadSettings({ WREN_DATA: dir }), { url: server.url, authToken: token });
  await applyMigrations(db);
  const { key } = await issueKey(db, { name: "workers test admin", scopes: ["admin"], sites: null });
  db.$client.close();
  await buildWorkers();
  project.provide("libsqlUrl", server.url);
  project.provide("libsqlToken", token);
  project.provide("adminKey", key);
  project.provide("secret", "5e".repeat(32));
  return async () => {
    await server.close();
  };
}
