/**
 * Deployments: a site's markers page by page (GET /api/v1/deployments, cursor paging), each
 * with its smoke-test conversions and a link to compare on the Overview; with
 * write:deployments, deleting a marker, recording one by hand and the inbound webhook.
 */
import { useState } from "preact/hooks";
import { api, unwrap } from "../../api/client";
import { useLoad } from "../../state/load";
import { hasScope } from "../../state/session";
import { RecordMarkerForm } from "./form";
import { WebhookSection } from "./hook";
import { DeploymentTable } from "./table";
import { useGoalNames } from "../overview/smoke";
import { Empty, Loaded } from "../../ui/states";

const PAGE = 50;

function Pager({ newer, older }: { newer?: () => void; older?: () => void }) {
  if (!newer && !older) return null;
  return (
    <nav class="row pager" aria-label="Deployment marker pages">
      {newer && (
        <button type="button" onClick={newer}>
          Newer markers
        </button>
      )}
      {older && (
        <button type="button" onClick={older}>
          Older markers
        </button>
      )}
    </nav>
  );
}

export function DeploymentsScreen({ site }: { site: string }) {
  // The cursors of the pages opened so far: the last one is shown; none is the newest page.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const list = useLoad(
    () => unwrap(api.GET("/api/v1/deployments", { params: { query: { site, limit: PAGE, ...(cursor ? { cursor } : {}) } } })),
    [site, cursor],
  );
  const goalNames = useGoalNames(site);
  const canWrite = hasScope("write:deployments");
  const backToNewest = () => (cursors.length ? setCursors([]) : list.reload());

  return (
    <div class="deployments">
      <section aria-labelledby="deployments-list">
        <h2 id="deployments-list">Markers</h2>
        <Loaded load={list} what="deployment markers">
          {({ deployments, next_cursor: next }) =>
            deployments.length === 0 && !cursor ? (
              <Empty>
                <p>No deployment markers yet.</p>
                <p>
                  {canWrite ? "Record one below, set up the webhook for GitHub or your CI, or run " : "A key with write:deployments records them: run "}
                  <code>npx wren deployments create --site {site} --version …</code> after each release
                  {canWrite ? "." : ", or use the API or the webhook."}
                </p>
              </Empty>
            ) : (
              <>
                <DeploymentTable site={site} deployments={deployments} goalNames={goalNames} canDelete={canWrite} onDeleted={list.reload} />
                <Pager
                  newer={cursor ? () => setCursors((c) => c.slice(0, -1)) : undefined}
                  older={next ? () => setCursors((c) => [...c, next]) : undefined}
                />
              </>
            )
          }
        </Loaded>
      </section>
      {canWrite ? (
        <>
          <section aria-labelledby="deployments-record">
            <h2 id="deployments-record">Record a marker</h2>
            <RecordMarkerForm site={site} onRecorded={backToNewest} />
          </section>
          <section aria-labelledby="deployments-webhook">
            <h2 id="deployments-webhook">Webhook</h2>
            <WebhookSection site={site} />
          </section>
        </>
      ) : (
        <p class="hint">
          Recording, deleting markers and the deployment webhook need a key with the <code>write:deployments</code> scope.
        </p>
      )}
    </div>
  );
}
