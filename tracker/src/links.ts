/**
 * What a click on a link records (the `t.js?track` part, tracker/src/track.ts): a plain
 * function that test/collector/tracker-links.test.ts runs in Node.
 *
 * - downloads: a link whose path ends in one of the extensions is `File Download` with
 *   `{file}`: its path on this origin, `host/path` on another (the query never leaves);
 * - outbound: a link to another origin is `Outbound Link: Click` with `{url}`: its origin only.
 * A download on another origin counts once, as a download. Only http(s) links count.
 */

import { DOWNLOAD_EVENT, OUTBOUND_EVENT } from "../../worker/lib/reserved-events";

/** The default download extensions; `data-download-extensions="pdf zip"` replaces them. */
export const DOWNLOAD_EXTENSIONS = "pdf zip dmg exe docx xlsx pptx csv mp3 mp4";

export interface LinkOptions {
  outbound: boolean;
  downloads: boolean;
  /** Lower-case extensions without their dot. */
  extensions: string[];
}

export interface LinkClick {
  name: typeof OUTBOUND_EVENT | typeof DOWNLOAD_EVENT;
  props: { url: string } | { file: string };
}

/** The options from the script tag's `data-track` and `data-download-extensions`. */
export function linkOptions(track: string | null, extensions: string | null): LinkOptions {
  const words = (track || "").toLowerCase().split(/\s+/);
  return {
    outbound: words.includes("outbound"),
    downloads: words.includes("downloads"),
    extensions: (extensions || DOWNLOAD_EXTENSIONS)
      .toLowerCase()
      .split(/[\s,]+/)
      .map((e) => e.replace(/^\./, ""))
      .filter(Boolean),
  };
}

/** The event a click on `href` (resolved against the page's URL `base`) records, or null. */
export function linkClick(href: string, base: string, options: LinkOptions): LinkClick | null {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(url.protocol)) return null;
  const here = new URL(base);
  const path = url.pathname.toLowerCase();
  if (options.downloads && options.extensions.some((e) => path.endsWith(`.${e}`))) {
    return { name: DOWNLOAD_EVENT, props: { file: url.origin === here.origin ? url.pathname : url.host + url.pathname } };
  }
  if (options.outbound && url.origin !== here.origin) return { name: OUTBOUND_EVENT, props: { url: url.origin } };
  return null;
}
