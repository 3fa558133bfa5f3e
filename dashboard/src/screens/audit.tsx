/** The audit log (admins; an admin of one site reads its site's entries): who did what, when. */
import { useState } from "preact/hooks";
import { api, unwrap } from "../api/client";
import { useLoad } from "../state/load";
import { Loaded } from "../ui/states";

const readPage = (before?: string) => unwrap(api.GET("/api/v1/audit", { params: { query: before ? { before } : {} } }));
type Page = Awaited<ReturnType<typeof readPage>>;

export function AuditScreen() {
  const first = useLoad(() => readPage(), []);
  return (
    <section aria-labelledby="audit-heading">
      <h1 id="audit-heading">Audit log</h1>
      <Loaded load={first} what="the audit log">
        {(page) => <AuditEntries first={page} />}
      </Loaded>
    </section>
  );
}

/** The newest page, and each older page appended below it as it is asked for. */
function AuditEntries({ first }: { first: Page }) {
  const [entries, setEntries] = useState(first.entries);
  const [next, setNext] = useState(first.next_before);
  const [failed, setFailed] = useState<string | null>(null);
  const readOlder = (before: string) =>
    readPage(before)
      .then((page) => {
        setEntries((list) => [...list, ...page.entries]);
        setNext(page.next_before);
      })
      .catch((error: unknown) => setFailed(error instanceof Error ? error.message : String(error)));
  return (
    <>
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
          {entries.map((e) => (
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
        <button type="button" onClick={() => void readOlder(next)}>
          Older entries
        </button>
      )}
    </>
  );
}
