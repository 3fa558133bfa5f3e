/**
 * The Overview's live counter (GET /api/v1/live): visitors now (the last 5 minutes) and in the
 * last 30, as the API bands them ("fewer than 5", "10–14"; docs/reports.md "Live"). It reads
 * again by itself at the answer's `next_update` — the reading cannot change before — and only
 * while the tab is visible: a hidden tab stops, and reads at once when shown again.
 */
import { useEffect, useState } from "preact/hooks";
import { api, ApiProblem, unwrap, type Schemas } from "../../api/client";
import type { Load } from "../../state/load";
import { formatTime } from "../../ui/time";

type Live = Schemas["Live"];
type LiveFigure = Schemas["LiveFigure"];

/** Bounds on the wait, so a browser clock far off the server's neither polls in a loop nor stalls. */
const MIN_WAIT_MS = 2_000;
const MAX_WAIT_MS = 90_000;
/** After a failed read. */
const RETRY_MS = 30_000;

function useLive(site: string): Load<Live> {
  const [state, setState] = useState<Load<Live>>({ status: "loading" });
  useEffect(() => {
    let alive = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const visible = () => document.visibilityState === "visible";
    const schedule = (ms: number) => {
      clearTimeout(timer);
      if (alive && visible()) timer = setTimeout(read, Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, ms)));
    };
    function read() {
      clearTimeout(timer);
      unwrap(api.GET("/api/v1/live", { params: { query: { site } } })).then(
        (data) => {
          if (!alive) return;
          setState({ status: "ready", data });
          schedule(Date.parse(data.next_update) - Date.now());
        },
        (error: unknown) => {
          if (!alive) return;
          setState({ status: "failed", problem: ApiProblem.from(error) });
          schedule(RETRY_MS);
        },
      );
    }
    const onVisibility = () => (visible() ? read() : clearTimeout(timer));
    setState({ status: "loading" });
    read();
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      alive = false;
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [site]);
  return state;
}

/** "fewer than 5" or "10–14". */
export function liveText(figure: LiveFigure, k: number): string {
  return figure.qualifier === "suppressed" || figure.value === null ? `fewer than ${k}` : `${figure.low}–${figure.high}`;
}

function liveReason(figure: LiveFigure, k: number): string {
  return figure.qualifier === "suppressed"
    ? `Fewer than ${k} visitors (none included): a smaller group is never counted.`
    : `Between ${figure.low} and ${figure.high}: a band of ${k}, from a count with noise added, so that one visitor arriving or leaving does not show.`;
}

function LiveCard({ label, figure, k }: { label: string; figure: LiveFigure; k: number }) {
  const text = liveText(figure, k);
  const why = liveReason(figure, k);
  return (
    <section class="card live-card" aria-label={label}>
      <h3 class="label">{label}</h3>
      <p class="value">
        <span class="figure live-figure" title={why} aria-label={`${text}. ${why}`} data-qualifier={figure.qualifier}>
          {text}
        </span>
      </p>
    </section>
  );
}

export function LiveCounter({ site }: { site: string }) {
  const live = useLive(site);
  if (live.status === "loading") return <p class="muted">Reading visitors on the site now…</p>;
  if (live.status === "failed") return <p class="note">Visitors on the site now could not be read: {live.problem.message}</p>;
  const { windows, k, as_of: asOf, timezone } = live.data;
  return (
    <>
      <div class="live-cards" aria-live="polite">
        <LiveCard label="Now" figure={windows["5m"]} k={k} />
        <LiveCard label="Last 30 minutes" figure={windows["30m"]} k={k} />
      </div>
      <p class="hint">
        Visitors with any activity in the 5 and 30 minutes up to {formatTime(asOf, timezone)}; updated every minute while this tab
        is open.
      </p>
    </>
  );
}
