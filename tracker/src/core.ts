/**
 * Wren's tracker: the script the snippet loads. It must stay small (≤ 3 KB gzip, checked by
 * test/collector/tracker-build.test.ts) and must never throw into the page.
 *
 * - a pageview on load and on every single-page-app navigation (History API);
 * - `wren.track(name, {value})` for custom events;
 * - engagement (seconds visible, deepest scroll %) per page view, sent when the page is
 *   hidden or left, so time and scroll goals can count;
 * - Core Web Vitals, by a second script (`t.js?vitals`, Google's web-vitals) loaded after
 *   the page has loaded;
 * - no cookies: a random session id in sessionStorage, at most 24 h old, readable with
 *   `wren.session()` so the site's backend can post conversions on the same session.
 */
import { BEACON_MAX_EVENTS } from "../../worker/lib/beacon-limits";
import { customEvent, engagementEvent, pagePath, pageviewEvent, vitalEvent, type Outgoing } from "./payload";

type Props = { value?: number };

interface Wren {
  /** The tracker's version; also marks it as loaded. */
  v: number;
  track(name: string, props?: Props): void;
  session(): string;
  /** Called by the vitals script with each web-vitals metric. */
  _vital(metric: { name: string; value: number }): void;
}

((w: Window & { wren?: Partial<Wren> & { q?: IArguments[] | unknown[][] } }, d: Document) => {
  const script = d.currentScript as HTMLScriptElement | null;
  if (!script || w.wren?.v) return;
  const site = script.getAttribute("data-site");
  const vitalsOn = script.getAttribute("data-vitals") !== "false";
  const src = script.src.split(/[?#]/)[0]!;
  const endpoint = src.replace(/[^/]*$/, "e");
  const DAY = 864e5;
  const STORAGE_KEY = "wren_session";
  const now = () => Date.now();

  // ---- session -------------------------------------------------------------------------
  let remembered: { id: string; t: number } | null = null;

  const randomId = () => {
    let s = "";
    for (const b of crypto.getRandomValues(new Uint8Array(16))) s += String.fromCharCode(b);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };

  const session = (): string => {
    let s = remembered;
    try {
      s = JSON.parse(sessionStorage.getItem(STORAGE_KEY) || "null") || s;
    } catch {
      // Storage blocked: the id lives as long as this page.
    }
    if (!s || !(now() - s.t < DAY) || !/^[\w-]{16,64}$/.test(s.id)) s = { id: randomId(), t: now() };
    remembered = s;
    try {
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify(s));
    } catch {
      // as above
    }
    return s.id;
  };

  // ---- sending -------------------------------------------------------------------------
  const send = (events: Outgoing[]) => {
    if (!site) return;
    for (let i = 0; i < events.length; i += BEACON_MAX_EVENTS) {
      const body = JSON.stringify({ site, session: session(), events: events.slice(i, i + BEACON_MAX_EVENTS) });
      try {
        // A string body goes as text/plain: a simple request, no preflight, survives unload.
        if (navigator.sendBeacon(endpoint, body)) continue;
      } catch {
        // fall through to fetch
      }
      try {
        fetch(endpoint, { method: "POST", body, keepalive: true, credentials: "omit", headers: { "content-type": "text/plain" } }).catch(() => {});
      } catch {
        // nothing more to try; never throw into the page
      }
    }
  };

  // ---- page view state -----------------------------------------------------------------
  const landingPath = pagePath(location.pathname);
  let path = landingPath;
  let engagedMs = 0;
  let visibleSince = 0;
  let depth = 0;
  let lastSent = "";
  const pending: Outgoing[] = [];

  const visible = () => d.visibilityState === "visible";

  const measure = () => {
    const root = d.documentElement;
    const height = Math.max(root.scrollHeight, d.body ? d.body.scrollHeight : 0);
    const seen = (w.scrollY || root.scrollTop) + w.innerHeight;
    depth = Math.max(depth, height > 0 ? Math.min(100, Math.round((seen / height) * 100)) : 100);
  };

  const engagement = (): Outgoing | null => {
    measure();
    const seconds = Math.floor((engagedMs + (visibleSince ? now() - visibleSince : 0)) / 1000);
    const mark = `${path} ${seconds} ${depth}`;
    if (mark === lastSent || (!seconds && !depth)) return null;
    lastSent = mark;
    return engagementEvent(path, seconds, depth);
  };

  // ---- Core Web Vitals -----------------------------------------------------------------
  /** TTFB and FCP are final once known: each goes once, from web-vitals or from `early`. */
  const sentOnce: Record<string, boolean> = {};
  /** When the page was first hidden (performance.now() time): a later FCP is not the visitor's. */
  let firstHidden = visible() ? Infinity : 0;

  const vital = (name: string, value: number) => {
    if (name === "TTFB" || name === "FCP") {
      if (sentOnce[name]) return;
      sentOnce[name] = true;
    }
    pending.push(vitalEvent(landingPath, name, value));
  };

  /**
   * TTFB and FCP from the browser's own timings, when web-vitals has not reported them yet: it
   * loads after the page and reports asynchronously, and a tab closed before then (Firefox, in
   * 3 runs of 5) lost them. Computed as web-vitals does (from a prerendered page's activation).
   */
  const early = () => {
    type Navigation = PerformanceNavigationTiming & { activationStart?: number };
    const nav = performance.getEntriesByType("navigation")[0] as Navigation | undefined;
    const start = (nav && nav.activationStart) || 0;
    if (nav && nav.responseStart > 0) vital("TTFB", nav.responseStart - start);
    const fcp = performance.getEntriesByName("first-contentful-paint")[0];
    if (fcp && fcp.startTime < firstHidden) vital("FCP", fcp.startTime - start);
  };

  /**
   * TTFB and FCP leave while the page is visible: with the landing pageview when the browser
   * has them by then, else in a beacon of their own at the first paint. They are final once
   * known, and Firefox closing a tab under load dropped the first beacon of the close now and
   * then (1 closing in 40, measured with 4 busy cores), losing them.
   */
  const sendEarly = () => {
    early();
    if (visible() && pending.length) send(pending.splice(0));
  };

  /** Every pending vital and the engagement, in one beacon. */
  const flush = () => {
    if (vitalsOn) safe(early)();
    const events = pending.splice(0);
    const e = engagement();
    if (e) events.push(e);
    if (events.length) send(events);
  };

  // The landing pageview carries the referrer and the campaign (payload.ts); later ones neither.
  const pageview = (referrer?: string, search?: string) => send([pageviewEvent(path, referrer, search), ...pending.splice(0)]);

  const startPage = () => {
    engagedMs = 0;
    visibleSince = visible() ? now() : 0;
    depth = 0;
    lastSent = "";
  };

  const navigated = () => {
    if (pagePath(location.pathname) === path) return;
    flush();
    path = pagePath(location.pathname);
    startPage();
    pageview();
  };

  const safe =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R | undefined => {
      try {
        return fn(...args);
      } catch {
        return undefined;
      }
    };

  // ---- public API ----------------------------------------------------------------------
  const api: Wren = {
    v: 1,
    track: safe((name: string, props?: Props) => {
      const event = customEvent(path, name, props && props.value);
      if (event) send([event]);
    }),
    session: () => safe(session)() || (remembered ? remembered.id : ""),
    _vital: safe((metric: { name: string; value: number }) => {
      vital(metric.name, metric.value);
      // Late reports (LCP, CLS, INP come as the page hides) go out at once.
      if (!visible()) flush();
    }),
  };

  const start = safe(() => {
    const queued = w.wren && w.wren.q;
    w.wren = api;
    startPage();
    if (vitalsOn) early();
    pageview(d.referrer, location.search);
    if (vitalsOn) {
      try {
        new PerformanceObserver(safe(sendEarly)).observe({ type: "paint", buffered: true });
      } catch {
        // no PerformanceObserver: `flush` reads them when the page is hidden
      }
    }

    let scrollTimer = 0;
    w.addEventListener("scroll", () => {
      if (!scrollTimer) scrollTimer = w.setTimeout(() => ((scrollTimer = 0), safe(measure)()), 100);
    }, { passive: true });
    d.addEventListener("visibilitychange", safe(() => {
      if (visible()) visibleSince = now();
      else {
        firstHidden = Math.min(firstHidden, performance.now());
        if (visibleSince) engagedMs += now() - visibleSince;
        visibleSince = 0;
        flush();
      }
    }));
    w.addEventListener("pagehide", safe(flush));

    for (const method of ["pushState", "replaceState"] as const) {
      const original = history[method];
      history[method] = function (this: History, ...args: Parameters<History["pushState"]>) {
        const result = original.apply(this, args);
        safe(navigated)();
        return result;
      };
    }
    w.addEventListener("popstate", safe(navigated));

    if (vitalsOn) {
      const loadVitals = safe(() => {
        const s = d.createElement("script");
        s.src = `${src}?vitals`;
        s.async = true;
        d.head.appendChild(s);
      });
      if (d.readyState === "complete") setTimeout(loadVitals);
      else w.addEventListener("load", () => setTimeout(loadVitals), { once: true });
    }

    // Calls made before the script loaded: window.wren = {q: [["track", "signup", {value: 1}]]}.
    if (Array.isArray(queued)) for (const [method, ...args] of queued as unknown[][]) if (method === "track") api.track(...(args as [string, Props?]));
  });

  try {
    const prerendering = (d as Document & { prerendering?: boolean }).prerendering;
    if (prerendering) d.addEventListener("prerenderingchange", start, { once: true });
    else start();
  } catch {
    // never throw into the page
  }
})(window, document);
