/**
 * The resident memory of a `wren start` stack's processes, by role, read from /proc: both workerd
 * processes (collector, api), the libSQL engine child and the `wren start` supervisor. Used by
 * the soak (minutes) and the ingest bench (its 60 s mixed load).
 */
import { readFileSync } from "node:fs";
import type { Stack } from "../test/helpers/stack";
import { processTree, type ProcessCpu } from "./load";

export const ROLES = ["collector", "api", "libsql", "supervisor"] as const;
export type Role = (typeof ROLES)[number];

export interface Sample {
  seconds: number;
  /** Resident memory (VmRSS) by process, in MB. */
  rss: Partial<Record<Role, number>>;
  /** The anonymous part of it (heaps; the rest is mapped files such as the binary), in MB. */
  anon: Partial<Record<Role, number>>;
}

/** A process's role by its command line: workerd's config names the process, the engine child its entry file. */
function roleOf(pid: number, command: string, supervisor: number | undefined): Role | undefined {
  if (pid === supervisor) return "supervisor";
  const args = command.split("\0");
  if (args.includes("collectorProcess")) return "collector";
  if (args.includes("apiProcess")) return "api";
  if (args.some((a) => a.endsWith("child-entry.ts"))) return "libsql";
  return undefined;
}

/** VmRSS and RssAnon of a process, in MB; undefined when it has ended. */
function memoryOf(pid: number): { rss: number; anon: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kB = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
    return { rss: kB("VmRSS") / 1024, anon: kB("RssAnon") / 1024 };
  } catch {
    return undefined;
  }
}

/** The stack's process in `role`, if it is running. */
export function processOf(stack: Stack, role: Role): ProcessCpu | undefined {
  return processTree(stack.process.pid).find(({ pid, command }) => roleOf(pid, command, stack.process.pid) === role);
}

export function sampleMemory(stack: Stack, seconds: number): Sample {
  const out: Sample = { seconds, rss: {}, anon: {} };
  for (const { pid, command } of processTree(stack.process.pid)) {
    const role = roleOf(pid, command, stack.process.pid);
    const memory = role && memoryOf(pid);
    if (!role || !memory) continue;
    out.rss[role] = (out.rss[role] ?? 0) + memory.rss;
    out.anon[role] = (out.anon[role] ?? 0) + memory.anon;
  }
  return out;
}

export interface MemoryFigures {
  start: number;
  peak: number;
  end: number;
  growth_after_warmup_pct: number;
}

/** Start (the first sample at or after `warmUpS`), peak and end in MB, and the growth from start to end. */
export function memoryFigures(
  samples: Sample[],
  warmUpS: number,
  read: (s: Sample) => number | undefined,
): MemoryFigures | undefined {
  const points = samples.filter((s) => s.seconds >= warmUpS && read(s) !== undefined).map((s) => read(s)!);
  if (points.length === 0) return undefined;
  const start = points[0]!;
  const end = points.at(-1)!;
  return {
    start: Math.round(start),
    peak: Math.round(Math.max(...points)),
    end: Math.round(end),
    growth_after_warmup_pct: Math.round((1000 * (end - start)) / start) / 10,
  };
}
