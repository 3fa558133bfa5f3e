/**
 * Sign-in: people with a passkey (usernameless: the browser offers its passkeys for Wren);
 * operators and machines with an API key (the admin key printed at first start, or any key an
 * admin made).
 */
import { useState } from "preact/hooks";
import { ApiProblem } from "../api/client";
import { signIn, signInWithPasskey } from "../state/session";

function PasskeySignIn() {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const go = async () => {
    setBusy(true);
    setProblem(null);
    try {
      await signInWithPasskey();
    } catch (error) {
      setProblem(
        error instanceof ApiProblem && error.status === 401
          ? "This passkey is not (or no longer) registered here. Ask an admin for an invitation."
          : error instanceof Error
            ? error.message
            : String(error),
      );
      setBusy(false);
    }
  };
  return (
    <section class="passkey-sign-in" aria-labelledby="passkey-heading">
      <h2 id="passkey-heading">People</h2>
      <button type="button" class="primary" onClick={go} disabled={busy}>
        {busy ? "Waiting for your passkey…" : "Sign in with a passkey"}
      </button>
      {problem && (
        <p class="failure" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}

export function SignInScreen() {
  const [key, setKey] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      await signIn(key.trim());
    } catch (error) {
      setProblem(
        error instanceof ApiProblem && error.status === 401
          ? "This key is not valid: it may be mistyped or revoked."
          : error instanceof Error
            ? error.message
            : String(error),
      );
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Wren</h1>
      <PasskeySignIn />
      <form onSubmit={submit} aria-describedby="sign-in-hint">
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
          aria-invalid={problem ? true : undefined}
          aria-errormessage={problem ? "sign-in-problem" : undefined}
        />
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in with the key"}
        </button>
        {problem && (
          <p id="sign-in-problem" class="failure" role="alert">
            {problem}
          </p>
        )}
        <p id="sign-in-hint" class="hint">
          Use the admin key printed when Wren first started, or a key from <code>npx wren keys create</code>. The key is kept in
          this tab only and forgotten when you sign out or close it.
        </p>
      </form>
    </main>
  );
}
