/**
 * People (admins; an admin of one site sees and manages that site's people): the list with each
 * person's roles, inviting (a one-time link shown once), changing a role, removing, and the
 * pending invitations. The API refuses anything the role may not do; this screen only hides it.
 */
import { useState } from "preact/hooks";
import { api, unwrap } from "../api/client";
import { useLoad } from "../state/load";
import { isAdmin, person } from "../state/session";
import { sites } from "../state/sites";
import { Loaded } from "../ui/states";

type Role = "viewer" | "editor" | "admin";
type Listed = Awaited<ReturnType<typeof readPeople>>;
const ROLES: Role[] = ["viewer", "editor", "admin"];

async function readPeople() {
  const [listed, pending] = await Promise.all([unwrap(api.GET("/api/v1/people")), unwrap(api.GET("/api/v1/invitations"))]);
  return { people: listed.people, invitations: pending.invitations };
}

export function PeopleScreen() {
  const listed = useLoad(readPeople, []);
  return (
    <section aria-labelledby="people-heading">
      <h1 id="people-heading">People</h1>
      <Loaded load={listed} what="people">
        {(initial) => <PeopleBody initial={initial} />}
      </Loaded>
    </section>
  );
}

/** The lists stay on screen while they are read again after each change. */
function PeopleBody({ initial }: { initial: Listed }) {
  const [{ people, invitations }, setListed] = useState(initial);
  const [link, setLink] = useState<string | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const manageable = isAdmin.value
    ? ["*", ...(sites.value ?? []).map((s) => s.id)]
    : (person.value?.grants ?? []).filter((g) => g.role === "admin").map((g) => g.site);
  const [site, setSite] = useState(manageable[0] ?? "*");
  const [role, setRole] = useState<Role>("viewer");

  const act = async (call: Promise<unknown>) => {
    setFailed(null);
    try {
      await call;
      setListed(await readPeople());
    } catch (error) {
      setFailed(error instanceof Error ? error.message : String(error));
    }
  };
  const invite = (event: Event) => {
    event.preventDefault();
    void act(unwrap(api.POST("/api/v1/people", { body: { site: site as never, role } })).then((made) => setLink(made.link)));
  };
  const siteName = (id: string) => (id === "*" ? "All sites" : (sites.value?.find((s) => s.id === id)?.name ?? id));

  return (
    <>
      <form class="invite" onSubmit={invite}>
        <label>
          Site
          <select name="site" value={site} onChange={(e) => setSite((e.target as HTMLSelectElement).value)}>
            {manageable.map((id) => (
              <option key={id} value={id}>
                {siteName(id)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Role
          <select name="role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as Role)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary">
          Invite
        </button>
      </form>
      {link && (
        <p class="secret" role="status">
          Send this one-time link (shown once, expires in 7 days): <code data-testid="invitation-link">{link}</code>
        </p>
      )}
      {failed && (
        <p class="failure" role="alert">
          {failed}
        </p>
      )}
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Roles</th>
            <th scope="col">Passkeys</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {people.map((p) => (
            <tr key={p.id} data-person={p.name}>
              <td>{p.name}</td>
              <td>
                {p.grants.map((g) => (
                  <span key={g.site} class="grant">
                    {siteName(g.site)}:{" "}
                    <select
                      aria-label={`Role of ${p.name} on ${siteName(g.site)}`}
                      value={g.role}
                      onChange={(e) =>
                        void act(
                          unwrap(
                            api.PATCH("/api/v1/people/{id}", {
                              params: { path: { id: p.id } },
                              body: { site: g.site as never, role: (e.target as HTMLSelectElement).value as Role },
                            }),
                          ),
                        )
                      }
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {r}
                        </option>
                      ))}
                    </select>{" "}
                  </span>
                ))}
              </td>
              <td>{p.passkeys}</td>
              <td>
                {p.id !== person.value?.account.id && (
                  <button
                    type="button"
                    onClick={() =>
                      void act(
                        unwrap(
                          api.DELETE("/api/v1/people/{id}", {
                            params: { path: { id: p.id }, query: isAdmin.value ? {} : { site: manageable[0] as never } },
                          }),
                        ),
                      )
                    }
                  >
                    Remove {p.name}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Pending invitations</h2>
      {invitations.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {invitations.map((i) => (
            <li key={i.id}>
              {i.role} on {siteName(i.site)}, expires {new Date(i.expires_at).toLocaleString()}{" "}
              <button
                type="button"
                onClick={() => void act(unwrap(api.DELETE("/api/v1/invitations/{id}", { params: { path: { id: i.id } } })))}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
