/**
 * A Web Vital's good / needs improvement / poor shares as a three-part bar, with the same
 * shares written out beside it, so the meaning never rests on color. A hidden share draws no
 * segment (the grey rest of the bar) and reads "< k", never 0.
 */
import type { Figure } from "../api/client";
import { FigureView, figureText } from "./figure";

const GROUPS = [
  { key: "good", label: "Good" },
  { key: "needs", label: "Needs improvement" },
  { key: "poor", label: "Poor" },
] as const;

export function RatingBar({ good, needs, poor, k }: { good: Figure; needs: Figure; poor: Figure; k: number }) {
  const shares = { good, needs, poor };
  return (
    <div class="report-rating">
      <div class="bars" aria-hidden="true">
        {GROUPS.map(({ key, label }) => {
          const share = shares[key];
          if (share.value === null || share.value <= 0) return null;
          return <span key={key} class={key} style={{ width: `${Math.min(share.value, 1) * 100}%` }} title={`${label}: ${figureText(share, k, "percent")}`} />;
        })}
      </div>
      <ul class="report-rating-text">
        {GROUPS.map(({ key, label }) => (
          <li key={key}>
            <span class={`report-swatch ${key}`} aria-hidden="true" />
            {label} <FigureView figure={shares[key]} k={k} format="percent" />
          </li>
        ))}
      </ul>
    </div>
  );
}
