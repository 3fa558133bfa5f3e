/** "Your sessions": where you are signed in (a coarse browser label and times), ending any of them, signing out, and adding a passkey. */
import { useState } from "preact/hooks";
import { api, unwrap, type Schemas } from "../api/client";
import { useLoad } from "../state/load";
import { signOut } from "../state/session";
import { Loaded } from "../ui/states";
import { AddPasskey } from "./add-passkey";

type Row = Schemas["AccountSession"];

const readSessions = () => unwrap(api.GET("/api/v1/account/sessions")).then((answer) => answer.sessions);

export function AccountScreen() {
  const sessions = useLoad(readSessions, []);
  return (
    <section aria-labelledby="account-heading">
      <h1 id="account-heading">Your sessions</h1>
      <Loaded load={sessions} what="your sessions">
        {(initial) => <SessionList initial={initial} />}
      </Loaded>
      <AddPasskey />
    </section>
  );
}

/** The list stays on screen while it is read again after ending a session. */
function SessionList({ initial }: { initial: Row[] }) {
  const [rows, setRows] = useState(initial);
  const [failed, setFailed] = useState<string | null>(null);
  const end = async (id: string) => {
    setFailed(null);
    try {
      await unwrap(api.DELETE("/api/v1/account/sessions/{id}", { params: { path: { id } } }));
      setRows(await readSessions());
    } catch (error) {
      setFailed(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <>
      {failed && (
        <p class="failure" role="alert">
          {failed}
        </p>
      )}
      <ul>
        {rows.map((s) => (
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
    </>
  );
}
