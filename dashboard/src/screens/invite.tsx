/**
 * The invitation page, /dashboard/invite#TOKEN: the token stays in the fragment (never sent to
 * a server, never in a Referer). The person gives a name and makes a passkey, or signs in with the
 * operator's identity provider when one is configured (the token then goes to Wren's own OIDC
 * start); the account gets the invitation's role and is signed in.
 */
import { useState } from "preact/hooks";
import { api, ApiProblem, unwrap } from "../api/client";
import { usePersonSession } from "../state/session";
import { OidcSignInButton } from "./oidc-sign-in";

export function InviteScreen() {
  const [token] = useState(() => location.hash.slice(1));
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      const options = await unwrap(
        api.POST("/api/v1/auth/passkey/register/options", { body: { invitation: token, name: name.trim() } }),
      );
      const { startRegistration } = await import("@simplewebauthn/browser"); // loaded when used: the dashboard's budget
      const response = await startRegistration({ optionsJSON: options.options as never });
      const session = await unwrap(
        api.POST("/api/v1/auth/passkey/register", {
          body: { challenge_id: options.challenge_id, invitation: token, name: name.trim(), response: response as never },
        }),
      );
      // The token is spent: drop it from the address before anything else is shown.
      history.replaceState(null, "", "/dashboard/");
      await usePersonSession(session as never);
      location.replace("/dashboard/");
    } catch (error) {
      setProblem(
        error instanceof ApiProblem && error.field === "invitation"
          ? "This invitation is unknown, expired, revoked or already used. Ask for a new one."
          : error instanceof Error
            ? error.message
            : String(error),
      );
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Join Wren</h1>
      {!token ? (
        <p class="failure" role="alert">
          This link has no invitation in it. Open the whole link you were sent.
        </p>
      ) : (
        <form onSubmit={submit}>
          <label for="person-name">Your name</label>
          <input
            id="person-name"
            name="name"
            required
            maxLength={100}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="primary" disabled={busy}>
            {busy ? "Making your passkey…" : "Create a passkey and join"}
          </button>
          {problem && (
            <p class="failure" role="alert">
              {problem}
            </p>
          )}
          <p class="hint">Your browser or device keeps the passkey; Wren stores only its public key. No password.</p>
        </form>
      )}
      {token && <OidcSignInButton invitation={token} />}
    </main>
  );
}
