import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { announceOnboarding } from "../../cli/onboarding";
import { loadSettings } from "../../cli/settings";

const KEY = `wren_${"k".repeat(43)}`;
const result = { secretCreated: true, adminKey: { id: "key_first", key: KEY } };

describe("announcing the first admin key", () => {
  it("prints it on a terminal and writes no file", () => {
    const settings = loadSettings({ WREN_DATA: mkdtempSync(join(tmpdir(), "wren-onb-")) });
    const message = announceOnboarding(result, settings, true);
    expect(message).toContain(`    ${KEY}\n`);
    expect(existsSync(join(settings.dataDir, "first-admin-key.txt"))).toBe(false);
  });

  it("without a terminal, writes it to a 0600 file and prints only the path", () => {
    const settings = loadSettings({ WREN_DATA: mkdtempSync(join(tmpdir(), "wren-onb-")) });
    const message = announceOnboarding(result, settings, false);
    const file = join(settings.dataDir, "first-admin-key.txt");
    expect(message).not.toContain(KEY);
    expect(message).toContain(`Your first admin key is in ${file} (mode 0600`);
    expect(readFileSync(file, "utf8")).toBe(`${KEY}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("says nothing when no key was made", () => {
    expect(announceOnboarding({ secretCreated: false, adminKey: null }, loadSettings({}), false)).toBe("");
  });
});
