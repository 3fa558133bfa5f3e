/**
 * The URL is the dashboard's state: the screen, the site and the report options live in it,
 * so any view can be bookmarked and shared. A few lines over the History API rather than a
 * router package: the screens need a path and a query, nothing more.
 */
import { computed, signal } from "@preact/signals";

export const BASE = "/dashboard";

const href = signal(location.pathname + location.search);

addEventListener("popstate", () => {
  href.value = location.pathname + location.search;
});

/** The path below /dashboard, e.g. "/s/site_x/overview". */
export const path = computed(() => new URL(href.value, location.origin).pathname.slice(BASE.length) || "/");

export const query = computed(() => new URL(href.value, location.origin).searchParams);

/** Goes to a dashboard path (below /dashboard) with the given query. */
export function navigate(to: string, params: Record<string, string | undefined> = {}, replace = false): void {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== "") search.set(name, value);
  const next = BASE + to + (search.size ? `?${search}` : "");
  if (replace) history.replaceState(null, "", next);
  else history.pushState(null, "", next);
  href.value = next;
  if (!replace) scrollTo(0, 0);
}

/** Changes query parameters of the current view, keeping the others (undefined removes one). */
export function setQuery(changes: Record<string, string | undefined>, replace = false): void {
  const params = Object.fromEntries(query.value);
  navigate(path.value, { ...params, ...changes }, replace);
}

/** The href of a dashboard path keeping the report options (period, from, to, compare) of this view. */
export function linkTo(to: string, keep: readonly string[] = ["period", "from", "to", "compare"]): string {
  const search = new URLSearchParams();
  for (const name of keep) {
    const value = query.value.get(name);
    if (value) search.set(name, value);
  }
  return BASE + to + (search.size ? `?${search}` : "");
}

/** Follows a same-origin link inside the dashboard without reloading the page. */
export function followLink(event: MouseEvent): void {
  const anchor = (event.target as Element | null)?.closest?.("a");
  if (!anchor || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
  const url = new URL(anchor.href, location.origin);
  if (url.origin !== location.origin || !url.pathname.startsWith(BASE) || anchor.target || anchor.hasAttribute("download")) return;
  event.preventDefault();
  history.pushState(null, "", url.pathname + url.search);
  href.value = url.pathname + url.search;
  scrollTo(0, 0);
}
