/**
 * Before `wren start` binds anything: is the port free, and if not, who holds it? workerd only
 * says "address in use" after the rest has started, and a health probe on a taken port could
 * reach someone else's server (or an orphan of an earlier start) and take it for ours.
 *
 * The holder is found the way `ss -p` does it, from /proc: the socket's inode in
 * /proc/net/tcp{,6}, then the process with that inode among its open files. Only Linux has
 * /proc, and only the owner (or root) may read a process's files; elsewhere the message says
 * "another process". No library does this without shelling out to lsof or ss, which a minimal
 * machine may lack.
 */
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";
import { commandLine, processIds } from "./processes";

/** Resolves true when `host:port` can be bound now (and releases it at once). */
export function portIsFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => (error.code === "EADDRINUSE" ? resolve(false) : reject(error)));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export interface PortHolder {
  pid: number;
  command: string;
}

/** The inodes of sockets listening on `port` (any address), from /proc/net/tcp and tcp6. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const portHex = port.toString(16).toUpperCase().padStart(4, "0");
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is "ADDR:PORT" in hex; state 0A is LISTEN; the inode is the 10th field.
      if (fields.length > 9 && fields[1]!.endsWith(`:${portHex}`) && fields[3] === "0A") inodes.add(fields[9]!);
    }
  }
  return inodes;
}

/** Who listens on `port`, when this machine and these permissions can tell; else null. */
export function portHolder(port: number): PortHolder | null {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return null;
  for (const pid of processIds()) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode && inodes.has(inode)) return { pid: Number(pid), command: shortCommand(pid) };
    }
  }
  return null;
}

function shortCommand(pid: string): string {
  const line = commandLine(pid);
  if (line === null) return "an unknown command";
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** One sentence for the operator: what holds the port and what to do. */
export function describeTakenPort(what: string, host: string, port: number): string {
  const holder = portHolder(port);
  const who = holder ? `process ${holder.pid} (${holder.command})` : "another process";
  const hint =
    holder && /workerd|wren/.test(holder.command)
      ? ` It looks like an earlier Wren still running: stop it (kill ${holder.pid}).`
      : "";
  return `${what} (${host}:${port}) is already in use by ${who}.${hint} Choose another port or stop that process.`;
}
