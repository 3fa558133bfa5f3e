/**
 * The processes of this machine, from /proc (Linux; elsewhere there are none to list): used to
 * name what holds a port (port-check.ts), and by the benches and tests to find the workerd
 * processes of one start by its data folder. No library reads /proc without shelling out to ps.
 */
import { readFileSync, readdirSync } from "node:fs";

/** The ids of the running processes. */
export function processIds(): string[] {
  try {
    return readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
}

/** A process's command line, arguments joined by spaces; null once it is gone (or unreadable). */
export function commandLine(pid: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
  } catch {
    return null;
  }
}

/** The processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  return processIds()
    .filter((pid) => commandLine(pid)?.includes(marker))
    .map(Number);
}
