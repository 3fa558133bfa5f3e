/**
 * Sign-in: people with a passkey (usernameless: the browser offers its passkeys for Wren);
 * operators and machines with an API key (the admin key printed at first start, or any key an
 * admin made).
 */
import { useState } from "preact/hooks";
import { signIn, signInWithPasskey } from "../state/session";
import { ActionProblem, useOneAction } from "../ui/one-action";
import { OidcSignInButton, OidcSignInError } from "./oidc-sign-in";

function PasskeySignIn() {
  const action = useOneAction(signInWithPasskey, (refused) =>
    refused.status === 401 ? "This passkey is not (or no longer) registered here. Ask an admin for an invitation." : undefined,
  );
  return (
    <section class="passkey-sign-in" aria-labelledby="passkey-heading">
      <h2 id="passkey-heading">People</h2>
      <button type="button" class="primary" onClick={() => void action.start()} disabled={action.busy}>
        {action.busy ? "Waiting for your passkey…" : "Sign in with a passkey"}
      </button>
      <ActionProblem action={action} />
    </section>
  );
}

export function SignInScreen() {
  const [key, setKey] = useState("");
  const action = useOneAction(
    () => signIn(key.trim()),
    (refused) => (refused.status === 401 ? "This key is not valid: it may be mistyped or revoked." : undefined),
  );
  return (
    <main id="main" class="sign-in">
      <h1>Wren</h1>
      <OidcSignInError />
      <PasskeySignIn />
      <OidcSignInButton />
      <form onSubmit={(e) => void action.start(e)} aria-describedby="sign-in-hint">
        <h2>Operators: use an API key</h2>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          placeholder="wren_…"
          required
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          aria-invalid={action.problem ? true : undefined}
          aria-errormessage={action.problem ? "sign-in-problem" : undefined}
        />
        <button type="submit" disabled={action.busy}>
          {action.busy ? "Signing in…" : "Sign in"}
        </button>
        <ActionProblem action={action} id="sign-in-problem" />
        <p id="sign-in-hint" class="hint">
          Use the admin key printed when Wren first started, or a key from <code>npx wren keys create</code>. The key is kept in
          this tab only and forgotten when you sign out or close it.
        </p>
      </form>
    </main>
  );
}
