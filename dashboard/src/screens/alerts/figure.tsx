/** An alert's figure as the reports draw it; when this key cannot learn k, suppressed reads "< k". */
import type { Figure } from "../../api/client";
import { FigureView } from "../../ui/figure";

const UNKNOWN_K_REASON =
  "Hidden: fewer than k sessions (the service's privacy threshold), or hiding it keeps a small group from being worked out from the figures shown.";

export function AlertFigure({ figure, k }: { figure: Figure; k: number | null }) {
  const suppressed = figure.qualifier === "suppressed" || figure.value === null;
  if (k !== null || !suppressed) return <FigureView figure={figure} k={k ?? 0} />;
  return (
    <span class="figure suppressed" title={UNKNOWN_K_REASON} aria-label={`< k. ${UNKNOWN_K_REASON}`} data-qualifier="suppressed">
      {"< k"}
    </span>
  );
}
