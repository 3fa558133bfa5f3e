/**
 * The Overview's head: which hours are compared, and a card per figure with the hours since
 * (current), the hours before (previous) and the change. The change is written in words (up,
 * down) as well as numbers, so its direction never rests on a colour or a minus sign alone.
 */
import type { Figure, Schemas } from "../../api/client";
import { beforeSite, FigureView, noDataBefore, SiteFigureView } from "../../ui/figure";
import { formatInstant, formatRange } from "../../ui/time";

export type Overview = Schemas["Overview"];
type Comparison = NonNullable<Overview["visitors"]>;

function Change({ delta, k }: { delta: Comparison["delta"]; k: number }) {
  const { absolute, relative } = delta;
  const value = absolute.qualifier === "suppressed" ? null : absolute.value;
  const direction = value === null ? null : value > 0 ? "up" : value < 0 ? "down" : "none";
  // The direction is in the word, so the figures are written without their sign.
  const size = (figure: Figure): Figure => (figure.value === null ? figure : { ...figure, value: Math.abs(figure.value) });
  return (
    <p class="delta">
      Change:{" "}
      {direction === "none" ? (
        <>
          no change (<FigureView figure={absolute} k={k} />)
        </>
      ) : (
        <>
          {direction && (
            <span class={`trend ${direction}`}>
              <span aria-hidden="true">{direction === "up" ? "▲" : "▼"} </span>
              {direction}{" "}
            </span>
          )}
          <FigureView figure={size(absolute)} k={k} />
          {relative ? (
            <>
              {" "}
              (<FigureView figure={size(relative)} k={k} format="percent" />)
            </>
          ) : (
            <span class="muted"> (no percentage: nothing before)</span>
          )}
        </>
      )}
    </p>
  );
}

/** Which of the two windows ended before the site was registered: their figures are no data, not zeros. */
export interface BeforeSite {
  current: boolean;
  previous: boolean;
}

/** Which windows of the Overview lie wholly before the site's creation (null: not known). */
export function windowsBeforeSite(overview: Overview, createdAt: number | null): BeforeSite {
  return { current: beforeSite(overview.current.end, createdAt), previous: beforeSite(overview.previous.end, createdAt) };
}

function MetricCard({ label, comparison, k, before }: { label: string; comparison: Comparison; k: number; before: BeforeSite }) {
  const none = noDataBefore(comparison.current, before.current) || noDataBefore(comparison.previous, before.previous);
  return (
    <section class="card overview-card" aria-label={label}>
      <h3 class="label">{label}</h3>
      <p class="value">
        <SiteFigureView figure={comparison.current} k={k} before={before.current} />
      </p>
      <p class="delta">
        Previous: <SiteFigureView figure={comparison.previous} k={k} before={before.previous} />
      </p>
      {none ? (
        <p class="delta">
          Change: <span class="muted">no comparison: the site did not exist yet</span>
        </p>
      ) : (
        <Change delta={comparison.delta} k={k} />
      )}
    </section>
  );
}

const METRICS = [
  ["visitors", "Visitors"],
  ["pageviews", "Pageviews"],
  ["sessions", "Sessions"],
] as const;

export function MetricCards({ overview, before }: { overview: Overview; before: BeforeSite }) {
  const present = METRICS.filter(([key]) => overview[key] !== null);
  if (present.length === 0) return null;
  return (
    <div class="cards">
      {present.map(([key, label]) => (
        <MetricCard key={key} label={label} comparison={overview[key]!} k={overview.k} before={before} />
      ))}
    </div>
  );
}

/** What is compared with what: since a marker, or the last 24 closed hours; and when a pending window fills. */
export function Windows({ overview, hasMarkers }: { overview: Overview; hasMarkers: boolean }) {
  const { deployment, current, previous, pending_until: pending, timezone } = overview;
  const hours = (n: number) => `${n} ${n === 1 ? "hour" : "hours"}`;
  return (
    <div class="overview-windows">
      <p class="overview-basis">
        {deployment ? (
          <>
            Since deployment <strong>{deployment.version}</strong> ({formatInstant(deployment.deployed_at, timezone)}
            {deployment.environment !== "production" && `, ${deployment.environment}`}), against as many hours before it.
          </>
        ) : (
          <>
            {hasMarkers
              ? "The last 24 closed hours vs the 24 before."
              : "No deployment marker yet: the last 24 closed hours vs the 24 before."}
          </>
        )}
      </p>
      {pending ? (
        <p class="note" role="status">
          No hour since this deployment has closed yet; figures arrive at {formatInstant(pending, timezone)}.
        </p>
      ) : (
        <dl class="facts">
          <dt>Current</dt>
          <dd>
            {formatRange(current.start, current.end, timezone)} ({hours(current.hours)})
          </dd>
          <dt>Previous</dt>
          <dd>
            {formatRange(previous.start, previous.end, timezone)} ({hours(previous.hours)})
          </dd>
        </dl>
      )}
    </div>
  );
}
