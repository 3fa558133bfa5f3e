/**
 * Debian's Chromium (/usr/bin/chromium; never a downloaded browser), driven by playwright-core,
 * with the flags this machine needs: no sandbox as root, and no background networking, which
 * would try hosts outside loopback.
 */
import { chromium, type Browser } from "playwright-core";

const RULES_FLAG = "--host-resolver-rules=";
/**
 * After a test's own host rules: every other name is not found, without asking a resolver.
 * Chromium still looked up accounts.google.com at start, background networking off or not.
 */
const NO_OTHER_NAMES = "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1";

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const testRules = extraArgs.filter((arg) => arg.startsWith(RULES_FLAG)).map((arg) => arg.slice(RULES_FLAG.length));
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      `${RULES_FLAG}${[...testRules, NO_OTHER_NAMES].join(", ")}`,
      ...extraArgs.filter((arg) => !arg.startsWith(RULES_FLAG)),
    ],
  });
}
