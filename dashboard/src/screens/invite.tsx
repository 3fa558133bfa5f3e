/**
 * The invitation page, /dashboard/invite#TOKEN: the token stays in the fragment (never sent to
 * a server, never in a Referer). The person gives a name and makes a passkey, or signs in with the
 * operator's identity provider when one is configured (the token then goes to Wren's own OIDC
 * start); the account gets the invitation's role and is signed in.
 */
import { useState } from "preact/hooks";
import { api, unwrap } from "../api/client";
import { usePersonSession } from "../state/session";
import { ActionProblem, useOneAction } from "../ui/one-action";
import { OidcSignInButton } from "./oidc-sign-in";

export function InviteScreen() {
  const [token] = useState(() => location.hash.slice(1));
  const [name, setName] = useState("");
  const action = useOneAction(
    async () => {
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
    },
    (refused) =>
      refused.field === "invitation"
        ? "This invitation is unknown, expired, revoked or already used. Ask for a new one."
        : undefined,
  );
  return (
    <main id="main" class="sign-in">
      <h1>Join Wren</h1>
      {!token ? (
        <p class="failure" role="alert">
          This link has no invitation in it. Open the whole link you were sent.
        </p>
      ) : (
        <form onSubmit={(e) => void action.start(e)}>
          <label for="person-name">Your name</label>
          <input
            id="person-name"
            name="name"
            required
            maxLength={100}
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
          <button type="submit" class="primary" disabled={action.busy}>
            {action.busy ? "Making your passkey…" : "Create a passkey and join"}
          </button>
          <ActionProblem action={action} />
          <p class="hint">Your browser or device keeps the passkey; Wren stores only its public key. No password.</p>
        </form>
      )}
      {token && <OidcSignInButton invitation={token} />}
    </main>
  );
}
