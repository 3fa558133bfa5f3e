/**
 * The api process's log filter (cli/workerd-log.ts): workerd's internal-error record (its line
 * and its stack line) is dropped and its reason put into the line that names its reference; a
 * record no line names is printed as one line without the stack once the hold runs out.
 */
import { describe, expect, it } from "vitest";
import { recordReason, WorkerdLog } from "../../cli/workerd-log";

const RECORD =
  "workerd/jsg/util.c++:320: error: e = rust/worker/ffi.rs:104: failed: TLS handshake failed: received corrupt message";
const stack = (id: string) =>
  `stack: /x/workerd@2b5edc0 /x/workerd@3fe4230; sentryErrorContext = jsgInternalError; wdErrId = ${id}`;

describe("the workerd log filter", () => {
  it("folds a record into the line that names its reference, and passes every other line as it is", () => {
    const out: string[] = [];
    const log = new WorkerdLog((l) => out.push(l), 60_000);
    log.line("alerts: 1 transition(s) of 2 rule(s)");
    log.line(RECORD);
    log.line(stack("abc123"));
    log.line(
      "alert delivery failed: rule alr_1 to h.example, attempt 1 of 13: internal error; reference = abc123; next attempt in 30 s",
    );
    log.flush();
    expect(out).toEqual([
      "alerts: 1 transition(s) of 2 rule(s)",
      "alert delivery failed: rule alr_1 to h.example, attempt 1 of 13: TLS handshake failed: received corrupt message; next attempt in 30 s",
    ]);
  });

  it("prints a record nobody names as one line, without its stack, when the hold runs out", async () => {
    const out: string[] = [];
    const log = new WorkerdLog((l) => out.push(l), 10);
    log.line(RECORD);
    log.line(stack("zzz"));
    expect(out).toEqual([]);
    await new Promise((r) => setTimeout(r, 50));
    expect(out).toEqual(["workerd: internal error zzz: TLS handshake failed: received corrupt message"]);
    expect(recordReason("kj/async-io-unix.c++:9: failed: failed to lookup address; host = x")).toBe(
      "failed to lookup address; host = x",
    );
  });

  it("passes a record without its stack line on as it was", () => {
    const out: string[] = [];
    const log = new WorkerdLog((l) => out.push(l), 60_000);
    log.line(RECORD);
    log.line("something else");
    log.line(RECORD);
    log.flush();
    expect(out).toEqual([RECORD, "something else", RECORD]);
  });
});
