/**
 * Wren's tracker: the script the snippet loads. It must stay small (≤ 2,560 B gzip, checked by
 * test/collector/tracker-build.test.ts and `npm run bench tracker`) and must never throw into the page.
 *
 * - a pageview on load and on every single-page-app navigation (History API; with `data-hash`,
 *   hash changes too), with the props of `data-props` or of the last `wren.props({...})`;
 * - `wren.track(name, {value, props, revenue})` for custom events, `wren.notFound()` for a 404 page;
 * - outbound links and file downloads, by a second script (`t.js?track`) loaded only when
 *   `data-track` asks for them;
 * - engagement (seconds visible, deepest scroll %) per page view, sent when the page is
 *   hidden or left, so time and scroll goals can count;
 * - Core Web Vitals, by a second script (`t.js?vitals`, Google's web-vitals) loaded after
 *   the page has loaded;
 * - no cookies: a random session id in sessionStorage, at most 24 h old, readable with
 *   `wren.session()` so the site's backend can post conversions on the same session.
 */
import { NOT_FOUND_EVENT } from "../../worker/lib/reserved-events";
import { beaconBodies, cleanProps, customEvent, engagementEvent, pagePath, pageviewEvent, vitalEvent, type Outgoing, type Props } from "./payload";

type Options = { value?: number; props?: unknown; revenue?: unknown };

interface Wren {
  /** The tracker's version; also marks it as loaded. */
  v: number;
  track(name: string, options?: Options): void;
  /** Event `404` on the current path: one line on the site's not-found page. */
  notFound(): void;
  /** Replaces the props of the pageviews that follow (a single-page app's). */
  props(props: unknown): void;
  session(): string;
  /** Called by the vitals script with each web-vitals metric. */
  _vital(metric: { name: string; value: number }): void;
}

((w: Window & { wren?: Partial<Wren> & { q?: IArguments[] | unknown[][] } }, d: Document) => {
  const script = d.currentScript as HTMLScriptElement | null;
  if (!script || w.wren?.v) return;
  const attr = (name: string) => script.getAttribute(name);
  const site = attr("data-site");
  const vitalsOn = attr("data-vitals") != "false";
  const hashRouting = attr("data-hash") != null;
  let pageProps: Props | undefined;
  try {
    pageProps = cleanProps(JSON.parse(attr("data-props")!));
  } catch {
    // not a JSON object: no props
  }
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
    for (const body of beaconBodies(site, session(), events)) {
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
  const here = () => pagePath(location.pathname, hashRouting && location.hash);
  const landingPath = here();
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
  const pageview = (referrer?: string, search?: string) => send([pageviewEvent(path, referrer, search, pageProps), ...pending.splice(0)]);

  const startPage = () => {
    engagedMs = 0;
    visibleSince = visible() ? now() : 0;
    depth = 0;
    lastSent = "";
  };

  const navigated = () => {
    if (here() === path) return;
    flush();
    path = here();
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
    track: safe((name: string, options?: Options) => {
      const o = options || {};
      const event = customEvent(path, name, o.value, o.props, o.revenue);
      if (event) send([event]);
    }),
    notFound: () => api.track(NOT_FOUND_EVENT),
    props: safe((props: unknown) => {
      pageProps = cleanProps(props);
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
    // Without data-hash the path ignores the hash, so a hash change is no navigation.
    for (const type of ["popstate", "hashchange"]) w.addEventListener(type, safe(navigated));

    const load = (part: string) =>
      safe(() => {
        const s = d.createElement("script");
        s.src = `${src}?${part}`;
        s.async = true;
        d.head.appendChild(s);
      });
    // Links can be clicked at once: the link part loads now, only when data-track asks for it.
    if (attr("data-track")) load("track")();
    if (vitalsOn) {
      const loadVitals = load("vitals");
      if (d.readyState === "complete") setTimeout(loadVitals);
      else w.addEventListener("load", () => setTimeout(loadVitals), { once: true });
    }

    // Calls made before the script loaded: window.wren = {q: [["track", "signup", {value: 1}]]}.
    // (Last: a queue that is no list throws here, into `safe`, after everything else is set up.)
    for (const [method, ...args] of (queued || []) as unknown[][]) (api as unknown as Record<string, (...a: unknown[]) => void>)[method as string]!(...args);
  });

  try {
    const prerendering = (d as Document & { prerendering?: boolean }).prerendering;
    if (prerendering) d.addEventListener("prerenderingchange", start, { once: true });
    else start();
  } catch {
    // never throw into the page
  }
})(window, document);
