/**
 * The comparison toggle (off / previous period / a year earlier), kept in the URL, and how a
 * change is written: "↑ 12 %", with the direction in words for screen readers, so it never
 * rests on an arrow or a colour alone. A change from a hidden figure is "< k" like the figure.
 */
import type { Figure } from "../api/client";
import { COMPARE_CHOICES, compareMode } from "../state/compare";
import { setQuery } from "../state/location";
import { FigureView, formatValue, type FigureFormat } from "./figure";

export function CompareToggle({ hourly }: { hourly: boolean }) {
  const current = compareMode.value;
  return (
    <div class="row compare-toggle">
      <div role="group" aria-label="Compare with" class="segmented">
        {COMPARE_CHOICES.map((choice) => (
          <button
            key={choice.label}
            type="button"
            aria-pressed={current === choice.name}
            disabled={hourly && choice.name !== null}
            onClick={() => setQuery({ compare: choice.name ?? undefined })}
          >
            {choice.label}
          </button>
        ))}
      </div>
      {hourly && current && (
        <span class="hint">
          Hours are not compared here: the comparison above compares them with the hours before a deployment.
        </span>
      )}
    </div>
  );
}

export interface Delta {
  absolute: Figure;
  relative: Figure | null;
}

/**
 * "↑ 12 %" (or "↓", "→ 0 %"); "new" where nothing was there before, the change then written in
 * the figure's `format`; "< k" where a side is hidden.
 */
export function DeltaView({ delta, k, format }: { delta: Delta; k: number; format?: FigureFormat }) {
  const { absolute, relative } = delta;
  if (absolute.qualifier === "suppressed" || absolute.value === null) {
    return (
      <span class="delta-change" data-delta="suppressed">
        change <FigureView figure={absolute} k={k} />
      </span>
    );
  }
  const direction = absolute.value > 0 ? "up" : absolute.value < 0 ? "down" : "none";
  const arrow = direction === "up" ? "↑" : direction === "down" ? "↓" : "→";
  if (!relative || relative.value === null) {
    return (
      <span class={`delta-change trend ${direction}`} data-delta="new">
        <span aria-hidden="true">{arrow} </span>
        {direction === "none" ? "no change" : `${direction} ${formatValue(Math.abs(absolute.value), format)}, nothing before`}
      </span>
    );
  }
  const percent = formatValue(Math.abs(relative.value), "percent");
  const approx = relative.qualifier === "estimated" ? "≈ " : "";
  // The arrow is drawn, the direction read out: the same words either way.
  return (
    <span class={`delta-change trend ${direction}`} data-delta={String(relative.value)}>
      <span aria-hidden="true">
        {arrow} {approx}
        {percent}
      </span>
      <span class="sr-only">
        {direction === "none" ? "no change" : direction} {approx}
        {percent}
      </span>
    </span>
  );
}
