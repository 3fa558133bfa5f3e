/**
 * "Sign in with NAME": the operator's OpenID provider, offered when GET /api/v1/auth/methods
 * names one (WREN_OIDC_NAME). The button is a plain link to /api/v1/auth/oidc/start — the
 * browser goes to the provider and comes back signed in (a `wren_session` cookie) — with the
 * invitation's token when it is on the invitation page. A refused sign-in comes back to the
 * sign-in screen with `?sign_in_error=CODE`; `OidcSignInError` says what it means, from the
 * worker's own table (lib/oidc-errors.ts), and never repeats anything else from the URL.
 */
import { useEffect, useState } from "preact/hooks";
import { isOidcErrorCode, OIDC_ERRORS } from "../../../worker/lib/oidc-errors";
import { query } from "../state/location";

/** The provider's name when sign-in with it is configured, else null (also while loading). */
function useOidcName(): string | null {
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetch("/api/v1/auth/methods", { credentials: "same-origin" })
      .then((response) => (response.ok ? (response.json() as Promise<{ oidc?: { name?: unknown } | null }>) : null))
      .then((methods) => {
        const offered = methods?.oidc?.name;
        if (live) setName(typeof offered === "string" && offered ? offered : null);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return name;
}

/** Where the button goes: the start of the sign-in, with the invitation and where to land. */
export function oidcStartUrl(invitation?: string, returnTo?: string): string {
  const params = new URLSearchParams();
  if (invitation) params.set("invitation", invitation);
  if (returnTo) params.set("return_to", returnTo);
  return `/api/v1/auth/oidc/start${params.size ? `?${params}` : ""}`;
}

export function OidcSignInButton({ invitation }: { invitation?: string }) {
  const name = useOidcName();
  if (!name) return null;
  return (
    <a class="button primary oidc-sign-in" href={oidcStartUrl(invitation)}>
      Sign in with {name}
    </a>
  );
}

/** The refused sign-in's reason, when the URL carries one of the known codes. */
export function OidcSignInError() {
  const code = query.value.get("sign_in_error");
  if (!isOidcErrorCode(code)) return null;
  return (
    <p id="oidc-sign-in-problem" class="failure" role="alert">
      {OIDC_ERRORS[code]}
    </p>
  );
}
