/** The sites the key can see, each opening its Overview; "Add site" opens the wizard. */
import { linkTo, navigate } from "../state/location";
import { hasScope } from "../state/session";
import { sites } from "../state/sites";
import { Empty, Loading } from "../ui/states";

export function SitesScreen() {
  const list = sites.value;
  const canAdd = hasScope("write:sites");
  return (
    <>
      <div class="screen-head">
        <h1>Sites</h1>
        {canAdd && (
          <button type="button" class="primary" onClick={() => navigate("/sites/new")}>
            Add site
          </button>
        )}
      </div>
      {list === null ? (
        <Loading what="sites" />
      ) : list.length === 0 ? (
        <Empty>
          <p>No sites yet.</p>
          <p>{canAdd ? "Add your first site: Wren gives you the snippet and checks it is installed." : "This key reaches no site. Ask an admin to add one to its allowlist."}</p>
        </Empty>
      ) : (
        <ul class="site-list">
          {list.map((site) => (
            <li key={site.id}>
              <a href={linkTo(`/s/${encodeURIComponent(site.id)}/overview`)}>
                <strong>{site.name}</strong>
                {site.domain && <span class="muted"> {site.domain}</span>}
              </a>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
