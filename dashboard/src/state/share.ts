/**
 * Share mode: the dashboard opened from a shared link (`/share/<token>/…`, docs/dashboard.md
 * "Sharing a dashboard"). The token is read from the page's own path — never stored — and every
 * API call carries it as `Authorization: Share <token>`; the API answers such a caller only the
 * reads a read:reports key on the link's site may make. A password link first asks for its
 * password: the unlock sets an HttpOnly cookie the page's script never sees.
 */
import { api, ApiProblem, unwrap, type ApiKey } from "../api/client";
import { currentKey } from "./session";
import { sites } from "./sites";

/** The link's token when this page is a shared dashboard, else null. */
export const shareToken: string | null = /^\/share\/([A-Za-z0-9_-]{1,64})(?:\/|$)/.exec(location.pathname)?.[1] ?? null;

if (shareToken) {
  api.use({
    onRequest({ request }) {
      request.headers.set("authorization", `Share ${shareToken}`);
      return request;
    },
  });
}

export interface SharedSite {
  id: string;
  name: string;
}

/**
 * Opens the link: its site, and a read-only caller the screens check scopes against
 * (read:reports and read:sites on that site, as the API holds it); "locked" when the link asks
 * for its password first.
 */
export async function openShare(): Promise<SharedSite | "locked"> {
  let share;
  try {
    share = await unwrap(api.GET("/api/v1/share"));
  } catch (error) {
    if (error instanceof ApiProblem && error.status === 401 && error.field === "password") return "locked";
    throw error;
  }
  const reader: ApiKey = {
    id: share.id,
    name: "Shared link",
    prefix: "",
    scopes: ["read:reports", "read:sites"],
    sites: [share.site.id],
    rate_limit: null,
    created_at: new Date(0).toISOString(),
    last_used_at: null,
  };
  currentKey.value = reader;
  sites.value = [{ id: share.site.id, name: share.site.name, domain: null, createdAt: null }];
  return share.site;
}

/** Sends the password; the API's problem (401 wrong, 429 too many) when it refuses. */
export async function unlockShare(password: string): Promise<void> {
  if (!shareToken) throw new ApiProblem(0, "This page is not a shared dashboard.");
  await unwrap(api.POST("/share/{token}/unlock", { params: { path: { token: shareToken } }, body: { password } }));
}
