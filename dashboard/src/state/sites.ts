/**
 * The sites the signed-in key can see, for the site switcher. A key with `read:sites` lists
 * them (the API lists only its allowed sites); any other key knows its sites by id only.
 */
import { signal } from "@preact/signals";
import { api, unwrap, type Site } from "../api/client";
import { currentKey, hasScope } from "./session";

export interface SiteChoice {
  id: string;
  name: string;
  domain: string | null;
  /** When the site was registered (ISO); null when this key cannot read the site (no read:sites). */
  createdAt: string | null;
}

/** null until the first read after sign-in. */
export const sites = signal<SiteChoice[] | null>(null);

export async function reloadSites(): Promise<SiteChoice[]> {
  const key = currentKey.value;
  let list: SiteChoice[];
  if (hasScope("read:sites")) {
    const { sites: all } = await unwrap(api.GET("/api/v1/sites"));
    list = all.map((site: Site) => ({ id: site.id, name: site.name, domain: site.domain, createdAt: site.created_at }));
  } else {
    list = (key?.sites ?? []).filter((id) => id !== "*").map((id) => ({ id, name: id, domain: null, createdAt: null }));
  }
  sites.value = list;
  return list;
}

/** The site's name as the list knows it, else its id (a key without read:sites knows ids only). */
export function siteName(id: string): string {
  return sites.value?.find((s) => s.id === id)?.name ?? id;
}

/** When the site was registered (ms), or null when not known. */
export function siteCreatedAt(id: string): number | null {
  const created = sites.value?.find((s) => s.id === id)?.createdAt;
  return created ? Date.parse(created) : null;
}
