/**
 * Who is signed in: the API key (kept in sessionStorage, so it dies with the tab and never
 * reaches localStorage) and what the API says it may do (GET /api/v1/keys/current).
 * Signing out or switching keys reloads the page: every screen's data lives in memory only,
 * so nothing the previous key read can be shown afterwards.
 */
import { computed, signal } from "@preact/signals";
import { api, setApiKey, unwrap, type ApiKey, type Scope } from "../api/client";

const STORAGE = "wren.apiKey";

/** The signed-in key's description; null while signed out. */
export const currentKey = signal<ApiKey | null>(null);

export const isAdmin = computed(() => currentKey.value?.scopes.includes("admin") ?? false);

/** Admin keys hold every scope. */
export function hasScope(scope: Scope): boolean {
  const key = currentKey.value;
  return key !== null && (key.scopes.includes("admin") || key.scopes.includes(scope));
}

/** Checks a key with the API and keeps it for this tab; throws the API's problem when it is refused. */
export async function signIn(key: string): Promise<void> {
  setApiKey(key);
  try {
    currentKey.value = await unwrap(api.GET("/api/v1/keys/current"));
  } catch (error) {
    setApiKey(null);
    throw error;
  }
  sessionStorage.setItem(STORAGE, key);
}

/** Restores the tab's key after a reload; false when there is none or the API refuses it now. */
export async function resume(): Promise<boolean> {
  const key = sessionStorage.getItem(STORAGE);
  if (!key) return false;
  try {
    await signIn(key);
    return true;
  } catch {
    sessionStorage.removeItem(STORAGE);
    return false;
  }
}

/** Forgets the key and everything read with it. */
export function signOut(): void {
  sessionStorage.removeItem(STORAGE);
  setApiKey(null);
  location.replace("/dashboard/");
}
