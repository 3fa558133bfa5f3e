/**
 * The api process's stderr on its way to the terminal. workerd logs a fetch() that fails below
 * HTTP (a TLS handshake refused, an address it cannot look up) as an internal error with a
 * native stack trace, and hands the worker only "internal error; reference = <id>". The alert
 * sender logs one line per failed attempt naming the rule and the destination
 * (worker/alerts/drain.ts); this filter puts workerd's reason into that line in place of the
 * reference, and drops workerd's record. A record no line names within HOLD_MS is printed as
 * one line, without the stack, so no other internal error goes unseen.
 */
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

const HOLD_MS = 5_000;
/** workerd's record: "workerd/jsg/util.c++:320: error: e = <where>: failed: <reason>", then its stack line. */
const RECORD = /^workerd\/jsg\/util\.c\+\+:\d+: error: e = (.*)$/;
const STACK = /^stack: .*sentryErrorContext = jsgInternalError; wdErrId = (\w+)/;
const REFERENCE = /internal error; reference = (\w+)/;

/** The reason in a record's first line: what follows "<file>:<line>: failed: ", or the whole text. */
export function recordReason(text: string): string {
  return (/^\S+:\d+: failed: (.*)$/.exec(text)?.[1] ?? text).trim();
}

/** Lines in, lines out: workerd's internal-error records folded into the lines that name them. */
export class WorkerdLog {
  private held: string | null = null;
  private readonly reasons = new Map<string, { reason: string; timer: ReturnType<typeof setTimeout> }>();

  constructor(
    private readonly out: (line: string) => void,
    private readonly holdMs = HOLD_MS,
  ) {}

  line(text: string): void {
    if (this.held !== null) {
      const stack = STACK.exec(text);
      const record = this.held;
      this.held = null;
      if (stack) return this.hold(stack[1]!, recordReason(RECORD.exec(record)![1]!));
      this.out(record); // not the record this filter knows: as it was
    }
    if (RECORD.test(text)) {
      this.held = text;
      return;
    }
    const reference = REFERENCE.exec(text);
    const known = reference && this.reasons.get(reference[1]!);
    if (known) {
      clearTimeout(known.timer);
      this.reasons.delete(reference[1]!);
      return this.out(text.replace(reference[0], known.reason));
    }
    this.out(text);
  }

  /** Prints whatever is still held (the stream ended). */
  flush(): void {
    if (this.held !== null) this.out(this.held);
    this.held = null;
    for (const [id, { reason, timer }] of this.reasons) {
      clearTimeout(timer);
      this.out(`workerd: internal error ${id}: ${reason}`);
    }
    this.reasons.clear();
  }

  private hold(id: string, reason: string): void {
    const timer = setTimeout(() => {
      this.reasons.delete(id);
      this.out(`workerd: internal error ${id}: ${reason}`);
    }, this.holdMs);
    timer.unref();
    this.reasons.set(id, { reason, timer });
  }
}

/** Copies `from` to `to` line by line through a WorkerdLog. */
export function pipeWorkerdLog(from: Readable, to: Writable): void {
  const log = new WorkerdLog((line) => to.write(`${line}\n`));
  const lines = createInterface({ input: from, crlfDelay: Infinity });
  lines.on("line", (line) => log.line(line));
  lines.on("close", () => log.flush());
}
