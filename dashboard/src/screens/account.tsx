/** "Your sessions": where you are signed in (a coarse browser label and times), ending any of them, signing out, and adding a passkey. */
import { useState } from "preact/hooks";
import { api, unwrap, type Schemas } from "../api/client";
import { signOut } from "../state/session";
import { AddPasskey } from "./add-passkey";

type Row = Schemas["AccountSession"];

export function AccountScreen() {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const reload = () =>
    unwrap(api.GET("/api/v1/account/sessions"))
      .then((answer) => setRows(answer.sessions))
      .catch((error: unknown) => setFailed(error instanceof Error ? error.message : String(error)));
  if (rows === null && failed === null) void reload();
  const end = async (id: string) => {
    try {
      await unwrap(api.DELETE("/api/v1/account/sessions/{id}", { params: { path: { id } } }));
      await reload();
    } catch (error) {
      setFailed(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <section aria-labelledby="account-heading">
      <h1 id="account-heading">Your sessions</h1>
      {failed && (
        <p class="failure" role="alert">
          {failed}
        </p>
      )}
      <ul>
        {(rows ?? []).map((s) => (
          <li key={s.id}>
            {s.label} — signed in {new Date(s.created_at).toLocaleString()}, last seen {new Date(s.last_seen_at).toLocaleString()}
            {s.current ? (
              <>
                {" "}
                (this browser){" "}
                <button type="button" onClick={() => void signOut()}>
                  Sign out
                </button>
              </>
            ) : (
              <button type="button" onClick={() => void end(s.id)}>
                End
              </button>
            )}
          </li>
        ))}
      </ul>
      <AddPasskey />
    </section>
  );
}
