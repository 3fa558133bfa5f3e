/**
 * The Core Web Vitals part of the tracker (`t.js?vitals`), loaded by the core after the
 * page has loaded: Google's web-vitals library, reporting each metric to `wren._vital`.
 * The metrics it needs from before it loaded (FCP, LCP, TTFB) come from buffered entries.
 */
import { onCLS, onFCP, onINP, onLCP, onTTFB, type Metric } from "web-vitals";

const wren = (window as Window & { wren?: { _vital?(metric: { name: string; value: number }): void } }).wren;
if (wren && wren._vital) {
  const report = (metric: Metric) => {
    try {
      wren._vital!({ name: metric.name, value: metric.value });
    } catch {
      // never throw into the page
    }
  };
  try {
    onTTFB(report);
    onFCP(report);
    onLCP(report);
    onCLS(report);
    onINP(report);
  } catch {
    // an old browser without PerformanceObserver: no vitals
  }
}
