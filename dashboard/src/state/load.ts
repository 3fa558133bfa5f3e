/**
 * Loading data for a screen: the state of one API read (loading, failed, ready), reread when
 * its inputs change. An answer that arrives after the inputs changed is dropped, so a quick
 * switch of site or period never shows the previous view's figures.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiProblem } from "../api/client";

export type Load<T> =
  | { status: "loading" }
  | { status: "failed"; problem: ApiProblem }
  | { status: "ready"; data: T };

export function useLoad<T>(read: () => Promise<T>, inputs: readonly unknown[]): Load<T> & { reload(): void } {
  const [state, setState] = useState<Load<T>>({ status: "loading" });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState({ status: "loading" });
    read().then(
      (data) => current && setState({ status: "ready", data }),
      (error: unknown) =>
        current &&
        setState({ status: "failed", problem: ApiProblem.from(error) }),
    );
    return () => {
      current = false;
    };
  }, [...inputs, round]);
  return { ...state, reload: () => setRound((n) => n + 1) };
}

/** Reads again every `ms` while `active`, e.g. the wizard waiting for the first beacon. */
export function usePoll(active: boolean, ms: number, tick: () => void): void {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(tick, ms);
    return () => clearInterval(timer);
  }, [active, ms]);
}
