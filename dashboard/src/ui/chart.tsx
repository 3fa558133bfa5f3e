/**
 * A time series chart on uPlot, with vertical markers (deployments) drawn on it and spans shaded
 * behind its lines (imported days). Hidden points
 * are gaps, never zeros; the screens list every point's figure beside the chart, "< k"
 * included, so the chart is a picture of the table, not the only place a figure lives. With a
 * comparison, an earlier period's line is drawn lighter and dashed beside its current one.
 */
import uPlot from "uplot";
import { useEffect, useRef } from "preact/hooks";

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  /** What the legend says at a gap (a hidden point), by point index: "< 5: quiet hours" (ui/hidden.ts). */
  gapLabel?: (index: number) => string;
  /**
   * An earlier period's line (`compare`): drawn lighter and dashed in the colour of the series
   * at this index, so a reader pairs it with its current line by colour and tells it apart by style.
   */
  previousOf?: number;
}

export interface ChartMarker {
  /** Unix seconds. */
  at: number;
  label: string;
}

const PALETTE = ["--series-1", "--series-2", "--series-3", "--series-4"];

/** One empty list for every chart without markers: a fresh [] each render would rebuild the chart. */
const NO_MARKERS: ChartMarker[] = [];

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

/** Draws each marker as a dashed vertical line with its label at the top. */
function markerPlugin(markers: ChartMarker[]): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        const { ctx } = u;
        const { top, height } = u.bbox;
        ctx.save();
        ctx.strokeStyle = cssVar("--marker");
        ctx.fillStyle = cssVar("--marker");
        ctx.lineWidth = 1.5 * devicePixelRatio;
        ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
        ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
        for (const marker of markers) {
          const x = Math.round(u.valToPos(marker.at, "x", true));
          if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
          ctx.beginPath();
          ctx.moveTo(x, top);
          ctx.lineTo(x, top + height);
          ctx.stroke();
          ctx.fillText(marker.label, x + 4 * devicePixelRatio, top + 12 * devicePixelRatio);
        }
        ctx.restore();
      },
    },
  };
}

/** One empty list for every chart without shaded spans. */
const NO_SPANS: ShadedSpan[] = [];

/** An x span drawn shaded behind the lines, with a label at its top (imported days). */
export interface ShadedSpan {
  /** Chart x values (the `times` scale): where the span starts and ends. */
  from: number;
  to: number;
  label: string;
}

/** Shades each span behind the series (drawClear runs before they are drawn). */
function shadePlugin(spans: readonly ShadedSpan[]): uPlot.Plugin {
  return {
    hooks: {
      drawClear: (u) => {
        if (spans.length === 0) return;
        const { ctx } = u;
        const { top, height, left, width } = u.bbox;
        ctx.save();
        ctx.font = `${11 * devicePixelRatio}px system-ui, sans-serif`;
        for (const span of spans) {
          const x0 = Math.max(left, Math.round(u.valToPos(span.from, "x", true)));
          const x1 = Math.min(left + width, Math.round(u.valToPos(span.to, "x", true)));
          if (x1 <= x0) continue;
          ctx.fillStyle = cssVar("--imported");
          ctx.fillRect(x0, top, x1 - x0, height);
          ctx.fillStyle = cssVar("--muted");
          ctx.fillText(span.label, x0 + 4 * devicePixelRatio, top + height - 6 * devicePixelRatio);
        }
        ctx.restore();
      },
    },
  };
}

const legendNumber = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });

/** A legend value: the figure, or the gap's label where the point is hidden. */
function legendValue(gapLabel: (index: number) => string) {
  return (_plot: uPlot, value: number | null, _series: number, index: number | null): string => {
    if (value !== null && value !== undefined) return legendNumber.format(value);
    return index === null ? "–" : gapLabel(index);
  };
}

export function TimeChart({
  title,
  times,
  series,
  markers = NO_MARKERS,
  shaded = NO_SPANS,
  span,
  height = 240,
}: {
  title: string;
  /** Unix seconds, one per point. */
  times: number[];
  series: ChartSeries[];
  markers?: ChartMarker[];
  /** Spans shaded behind the lines (the timeseries' imported days). */
  shaded?: readonly ShadedSpan[];
  /** The x axis' extent (Unix seconds), when the points cover more than their starts: a day's point runs to its end. */
  span?: readonly [number, number];
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const axis = { stroke: cssVar("--muted"), grid: { stroke: cssVar("--grid") }, ticks: { stroke: cssVar("--grid") } };
    const plot = new uPlot(
      {
        width: element.clientWidth || 320,
        height,
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        scales: { x: span ? { time: true, range: (): uPlot.Range.MinMax => [span[0], span[1]] } : { time: true } },
        axes: [axis, axis],
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: cssVar(PALETTE[(s.previousOf ?? i) % PALETTE.length]!),
            width: s.previousOf === undefined ? 2 : 1.5,
            ...(s.previousOf === undefined ? {} : { alpha: 0.45, dash: [6, 4] }),
            spanGaps: false,
            points: { show: times.length <= 48 },
            // The legend names why a point is hidden where it is a gap; numbers as uPlot writes them.
            ...(s.gapLabel ? { value: legendValue(s.gapLabel) } : {}),
          })),
        ],
        plugins: [shadePlugin(shaded), markerPlugin(markers)],
      },
      [times, ...series.map((s) => s.values)] as uPlot.AlignedData,
      element,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth || 320, height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, markers, shaded, span, height]);
  return <div class="chart" ref={box} role="img" aria-label={title} />;
}
