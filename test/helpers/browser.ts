/**
 * Debian's Chromium (/usr/bin/chromium; never a downloaded browser), driven by playwright-core,
 * with the flags this machine needs: no sandbox as root, and no background networking, which
 * would try hosts outside loopback.
 */
import { chromium, type Browser } from "playwright-core";

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
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
      ...extraArgs,
    ],
  });
}
