/**
 * The URL is the dashboard's state: the screen, the site and the report options live in it,
 * so any view can be bookmarked and shared. A few lines over the History API rather than a
 * router package: the screens need a path and a query, nothing more.
 */
import { computed, signal } from "@preact/signals";

/** Where the app lives: /dashboard, or a shared link's own path (/share/<token>, state/share.ts). */
export const BASE = /^\/share\/[A-Za-z0-9_-]{1,64}(?=\/|$)/.exec(location.pathname)?.[0] ?? "/dashboard";

const href = signal(location.pathname + location.search);

addEventListener("popstate", () => {
  href.value = location.pathname + location.search;
});

/** The path below /dashboard, e.g. "/s/site_x/overview". */
export const path = computed(() => new URL(href.value, location.origin).pathname.slice(BASE.length) || "/");

export const query = computed(() => new URL(href.value, location.origin).searchParams);

/** A query parameter's value: one, several (repeated, as `filter`), or undefined for none. */
export type QueryValue = string | readonly string[] | undefined;

/** Goes to a dashboard path (below /dashboard) with the given query. */
export function navigate(to: string, params: Record<string, QueryValue> = {}, replace = false): void {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    for (const one of typeof value === "string" ? [value] : (value ?? [])) if (one !== "") search.append(name, one);
  const next = BASE + to + (search.size ? `?${search}` : "");
  if (replace) history.replaceState(null, "", next);
  else history.pushState(null, "", next);
  href.value = next;
  if (!replace) scrollTo(0, 0);
}

/** Changes query parameters of the current view, keeping the others (undefined removes one). */
export function setQuery(changes: Record<string, QueryValue>, replace = false): void {
  // Every value of a repeated parameter, not only its first.
  const params: Record<string, QueryValue> = {};
  for (const name of query.value.keys()) params[name] = query.value.getAll(name);
  navigate(path.value, { ...params, ...changes }, replace);
}

/** The href of a dashboard path keeping the report options (period, from, to, filters, compare) of this view. */
export function linkTo(to: string, keep: readonly string[] = ["period", "from", "to", "filter", "compare"]): string {
  const search = new URLSearchParams();
  for (const name of keep) for (const value of query.value.getAll(name)) if (value) search.append(name, value);
  return BASE + to + (search.size ? `?${search}` : "");
}

/** Follows a same-origin link inside the dashboard without reloading the page. */
export function followLink(event: MouseEvent): void {
  const anchor = (event.target as Element | null)?.closest?.("a");
  if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const url = new URL(anchor.href, location.origin);
  if (url.origin !== location.origin || !url.pathname.startsWith(BASE) || anchor.target || anchor.hasAttribute("download"))
    return;
  event.preventDefault();
  history.pushState(null, "", url.pathname + url.search);
  href.value = url.pathname + url.search;
  scrollTo(0, 0);
}
