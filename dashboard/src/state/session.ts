/**
 * Who is signed in: a person (a passkey sign-in: the HttpOnly session cookie, which script never
 * sees, and its CSRF token from GET /api/v1/session) or an API key (kept in sessionStorage, so it
 * dies with the tab and never reaches localStorage), and what the API says it may do
 * (GET /api/v1/keys/current: for a person, the union of their roles' scopes).
 * Signing out or switching keys reloads the page: every screen's data lives in memory only,
 * so nothing the previous key read can be shown afterwards.
 */
import { computed, signal } from "@preact/signals";
import { grantsHold } from "../../../worker/lib/roles";
import { api, setApiKey, setCsrfToken, unwrap, type ApiKey, type Schemas, type Scope } from "../api/client";
import { path } from "./location";

const STORAGE = "wren.apiKey";
/**
 * A hint, not a secret: this browser signed a person in. The session cookie is HttpOnly, so the
 * page cannot see it; without the hint a reload would ask GET /api/v1/session of every visitor
 * and log a 401 for each one that uses a key or is signed out.
 */
const PERSON_HINT = "wren.signedInPerson";

/** The signed-in key's description; null while signed out. */
export const currentKey = signal<ApiKey | null>(null);

export const isAdmin = computed(() => currentKey.value?.scopes.includes("admin") ?? false);

/** The signed-in person (GET /api/v1/session); null when signed in with a key, or signed out. */
export const person = signal<Schemas["PersonSession"] | null>(null);

/** Admins of all sites, and admins of one site (for that site's people), manage people. */
export const managesPeople = computed(() => isAdmin.value || (person.value?.grants.some((g) => g.role === "admin") ?? false));

/** The site the screen shows (`/s/ID/…`), whose grants decide a person's controls; null elsewhere. */
const shownSite = computed(() => /^\/s\/([^/]+)/.exec(path.value)?.[1] ?? null);

/**
 * Admin keys hold every scope. A person holds a scope on the shown site only through a grant of
 * that site or of every site (lib/roles.ts, as the API checks it); off a site's screens, through
 * any grant. A key's scopes hold on every site it lists.
 */
export function hasScope(scope: Scope): boolean {
  const key = currentKey.value;
  if (key === null) return false;
  const grants = person.value?.grants;
  const site = shownSite.value;
  if (grants && site) return grantsHold(grants, scope, site);
  return key.scopes.includes("admin") || key.scopes.includes(scope);
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

/** Takes a signed-in person's session (after a passkey sign-in or registration, or a reload). */
export async function usePersonSession(session: Schemas["PersonSession"]): Promise<void> {
  localStorage.setItem(PERSON_HINT, "1");
  setCsrfToken(session.csrf_token);
  person.value = session;
  currentKey.value = await unwrap(api.GET("/api/v1/keys/current"));
}

/** Signs in with a passkey (usernameless: the browser offers the passkeys it holds for Wren). */
export async function signInWithPasskey(): Promise<void> {
  const options = await unwrap(api.POST("/api/v1/auth/passkey/sign-in/options"));
  // Loaded on the click: the sign-in screen is in every first load (the dashboard's 60 KB budget).
  const { startAuthentication } = await import("@simplewebauthn/browser");
  const response = await startAuthentication({ optionsJSON: options.options as never });
  const session = await unwrap(
    api.POST("/api/v1/auth/passkey/sign-in", { body: { challenge_id: options.challenge_id, response: response as never } }),
  );
  await usePersonSession(session);
}

/** Restores the tab's key, or the browser's session cookie, after a reload; false when neither is accepted. */
export async function resume(): Promise<boolean> {
  const key = sessionStorage.getItem(STORAGE);
  if (!key) {
    if (!localStorage.getItem(PERSON_HINT)) return false;
    const answer = await api.GET("/api/v1/session").catch(() => undefined);
    if (!answer?.data) {
      localStorage.removeItem(PERSON_HINT);
      return false;
    }
    await usePersonSession(answer.data);
    return true;
  }
  try {
    await signIn(key);
    return true;
  } catch {
    sessionStorage.removeItem(STORAGE);
    return false;
  }
}

/** Forgets the key (or ends the person's session) and everything read with it. */
export async function signOut(): Promise<void> {
  sessionStorage.removeItem(STORAGE);
  localStorage.removeItem(PERSON_HINT);
  setApiKey(null);
  if (person.value) await api.DELETE("/api/v1/session").catch(() => undefined);
  location.replace("/dashboard/");
}
