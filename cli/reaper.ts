/**
 * Ties `wren start`'s children to its life. A `kill -9` of the supervisor runs none of its
 * code, so without this its workerd processes would live on, reparented to PID 1, holding the
 * port. The reaper is a small shell that reads a pipe from the supervisor: each child is
 * announced as `watch PID`; a clean stop sends `stop`; end of file without `stop` means the
 * supervisor died, and the reaper stops the children it was told of (TERM, then KILL).
 *
 * A pipe rather than prctl(PR_SET_PDEATHSIG): Node cannot set a death signal without a native
 * addon, and macOS has none; every POSIX system has sh and pipes. The libSQL engine child needs
 * no reaper: it watches its IPC channel (server/hrana/child-entry.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";

// Ctrl-C and a service manager's TERM reach the whole process group: the reaper ignores them,
// since stopping is the supervisor's call (it sends `stop` once the children are gone).
const SCRIPT = `
trap '' INT TERM HUP
pids=""
while read -r word pid; do
  case "$word" in
    watch) pids="$pids $pid" ;;
    stop) exit 0 ;;
  esac
done
[ -z "$pids" ] && exit 0
kill -TERM $pids 2>/dev/null
sleep 3
kill -KILL $pids 2>/dev/null
exit 0
`;

export interface Reaper {
  /** Stop `child` if this process dies before it. */
  watch(child: ChildProcess): void;
  /** This process is stopping cleanly: the reaper leaves. */
  release(): void;
}

export function startReaper(): Reaper {
  const reaper = spawn("sh", ["-c", SCRIPT, "wren-reaper"], { stdio: ["pipe", "ignore", "inherit"] });
  // The pipe and the process must not keep this one alive, nor kill it if the reaper is gone.
  reaper.stdin!.on("error", () => undefined);
  reaper.unref();
  (reaper.stdin as unknown as { unref?: () => void }).unref?.();
  return {
    watch(child) {
      if (child.pid !== undefined && reaper.stdin!.writable) reaper.stdin!.write(`watch ${child.pid}\n`);
    },
    release() {
      if (reaper.stdin!.writable) reaper.stdin!.end("stop\n");
    },
  };
}
