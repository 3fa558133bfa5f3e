/**
 * Runs a command with a resolver on loopback only: a mount namespace of its own whose
 * /etc/resolv.conf names 127.0.0.1, where nothing answers. A test's Wren resolves the host of
 * every webhook it tries to deliver (hooks.example.com and the like); with the machine's
 * resolver that lookup left the box. No test sends anything beyond loopback, DNS included.
 * Names in /etc/hosts (localhost) still resolve.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let resolvConf: string | undefined;

/** The resolv.conf the namespace mounts: one nameserver, 127.0.0.1, asked once for a second at most. */
function loopbackResolvConf(): string {
  if (!resolvConf) {
    resolvConf = join(mkdtempSync(join(tmpdir(), "wren-resolver-")), "resolv.conf");
    writeFileSync(resolvConf, "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n");
  }
  return resolvConf;
}

/** `command args…` wrapped so that it, and every process it starts, asks only 127.0.0.1 for names. */
export function withLoopbackResolver(command: string, args: string[]): [string, string[]] {
  if (process.platform !== "linux") return [command, args];
  return [
    "unshare",
    [
      "--map-root-user",
      "--mount",
      "sh",
      "-c",
      // Without a resolv.conf, glibc asks 127.0.0.1 already.
      'if [ -e /etc/resolv.conf ]; then mount --bind "$0" /etc/resolv.conf || exit 97; fi; exec "$@"',
      loopbackResolvConf(),
      command,
      ...args,
    ],
  ];
}
