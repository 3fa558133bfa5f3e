/**
 * "Add a passkey" for the signed-in person (a second device, a backup key): the same two calls
 * as joining (POST /api/v1/auth/passkey/register/options, then …/register), without an
 * invitation, so the session cookie says whose passkey it is.
 */
import { useState } from "preact/hooks";
import { api, unwrap } from "../api/client";

export function AddPasskey() {
  const [name, setName] = useState("");
  const [state, setState] = useState<{ busy: boolean; done: string | null; problem: string | null }>({
    busy: false,
    done: null,
    problem: null,
  });
  const submit = async (event: Event) => {
    event.preventDefault();
    setState({ busy: true, done: null, problem: null });
    try {
      const options = await unwrap(api.POST("/api/v1/auth/passkey/register/options", { body: {} }));
      const { startRegistration } = await import("@simplewebauthn/browser"); // loaded when used: the dashboard's budget
      const response = await startRegistration({ optionsJSON: options.options as never });
      await unwrap(
        api.POST("/api/v1/auth/passkey/register", {
          body: { challenge_id: options.challenge_id, name: name.trim() || undefined, response: response as never },
        }),
      );
      setName("");
      setState({ busy: false, done: "Passkey added: it signs you in from now on.", problem: null });
    } catch (error) {
      setState({ busy: false, done: null, problem: error instanceof Error ? error.message : String(error) });
    }
  };
  return (
    <form class="stack add-passkey" aria-labelledby="add-passkey-heading" onSubmit={submit}>
      <h2 id="add-passkey-heading">Add a passkey</h2>
      <label for="passkey-name">Name (optional, e.g. "work laptop")</label>
      <input id="passkey-name" maxLength={100} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      <button type="submit" disabled={state.busy}>
        {state.busy ? "Waiting for your device…" : "Add a passkey"}
      </button>
      {state.done && <p role="status">{state.done}</p>}
      {state.problem && (
        <p class="failure" role="alert">
          {state.problem}
        </p>
      )}
    </form>
  );
}
