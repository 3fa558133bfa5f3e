/** The audit log (admins; an admin of one site reads its site's entries): who did what, when. */
import { useState } from "preact/hooks";
import { api, unwrap, type Schemas } from "../api/client";

type Entry = Schemas["AuditEntry"];

export function AuditScreen() {
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const load = (before?: string) =>
    unwrap(api.GET("/api/v1/audit", { params: { query: before ? { before } : {} } }))
      .then((answer) => {
        setEntries((list) => [...(before ? (list ?? []) : []), ...answer.entries]);
        setNext(answer.next_before);
      })
      .catch((error: unknown) => setFailed(error instanceof Error ? error.message : String(error)));
  if (entries === null && failed === null) void load();
  return (
    <section aria-labelledby="audit-heading">
      <h1 id="audit-heading">Audit log</h1>
      {failed && (
        <p class="failure" role="alert">
          {failed}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">What</th>
            <th scope="col">Site</th>
            <th scope="col">Target</th>
          </tr>
        </thead>
        <tbody>
          {(entries ?? []).map((e) => (
            <tr key={e.id}>
              <td>{new Date(e.at).toLocaleString()}</td>
              <td>
                {e.actor.name} ({e.actor.kind})
              </td>
              <td>{e.action}</td>
              <td>{e.site ?? "—"}</td>
              <td>{e.target ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {next && (
        <button type="button" onClick={() => void load(next)}>
          Older entries
        </button>
      )}
    </section>
  );
}
