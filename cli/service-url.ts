/**
 * The URL the service serves on, for what the CLI prints (snippets, webhook URLs). `wren start`
 * records the public URL it serves on in the data folder (`run/public-url`); a command run later
 * from another shell, without the service's PORT, HOST or WREN_PUBLIC_URL, prints that URL rather
 * than the defaults' :8787. A setting given to the command itself still wins.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from "./data-folder";
import type { Settings } from "./settings";

function recordFile(settings: Settings): string {
  return join(settings.dataDir, "run", "public-url");
}

/** Called by `wren start` once the service answers. */
export function recordServiceUrl(settings: Settings): void {
  mkdirSync(join(settings.dataDir, "run"), { recursive: true, mode: PRIVATE_DIR_MODE });
  writeFileSync(recordFile(settings), `${settings.publicUrl}\n`, { mode: PRIVATE_FILE_MODE });
}

/** The command's own setting when it has one, else the URL of the last `wren start` on this data folder, else the default. */
export function serviceUrl(settings: Settings): string {
  if (settings.publicUrlConfigured) return settings.publicUrl;
  try {
    const recorded = readFileSync(recordFile(settings), "utf8").trim();
    if (/^https?:\/\/\S+$/.test(recorded)) return recorded;
  } catch {
    // No start recorded yet: the defaults are what `npm start` would serve on.
  }
  return settings.publicUrl;
}
