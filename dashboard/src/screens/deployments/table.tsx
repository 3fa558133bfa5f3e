/**
 * A page of a site's deployment markers, newest first: what was deployed where and when, how
 * it was recorded, its smoke-test conversions, a link to compare on the Overview and (with
 * write:deployments) a delete that asks for confirmation in the row itself.
 */
import { useState } from "preact/hooks";
import { api, ApiProblem, unwrap, type Schemas } from "../../api/client";
import { compareHref } from "../overview/markers";
import { SmokeList } from "../overview/smoke";
import { ConfirmButton } from "../../ui/confirm";
import { formatInstant } from "../../ui/time";
import { Failure } from "../../ui/states";

type Deployment = Schemas["Deployment"];

const SOURCES: Record<Deployment["source"], string> = { api: "API", github: "GitHub", webhook: "Webhook" };

function DeleteMarker({ deployment, onDeleted }: { deployment: Deployment; onDeleted(): void }) {
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const remove = () => {
    setProblem(null);
    return unwrap(api.DELETE("/api/v1/deployments/{id}", { params: { path: { id: deployment.id } } })).then(onDeleted, (error: unknown) =>
      setProblem(ApiProblem.from(error)),
    );
  };
  return (
    <>
      <ConfirmButton
        label="Delete"
        ariaLabel={`Delete marker ${deployment.version}`}
        question={`Delete marker ${deployment.version}? Its smoke-test conversions then belong to another marker.`}
        confirmLabel="Yes, delete"
        busyLabel="Deleting…"
        onConfirm={remove}
      />
      {problem && <Failure problem={problem} />}
    </>
  );
}

export function DeploymentTable({
  site,
  deployments,
  goalNames,
  canDelete,
  onDeleted,
}: {
  site: string;
  deployments: readonly Deployment[];
  goalNames: ReadonlyMap<string, string>;
  canDelete: boolean;
  onDeleted(): void;
}) {
  return (
    <div class="table-wrap">
      <table class="deployment-table">
        <caption>Deployment markers, newest first (times in your browser's time zone)</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Environment</th>
            <th scope="col">Deployed</th>
            <th scope="col">Source</th>
            <th scope="col">Smoke tests</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {deployments.map((d) => (
            <tr key={d.id}>
              <th scope="row">
                <code>{d.version}</code>
                {d.description && <div class="muted">{d.description}</div>}
                {d.url && (
                  <div>
                    <a href={d.url} rel="noreferrer noopener" target="_blank">
                      Build or release page<span class="sr-only"> of {d.version} (opens in a new tab)</span>
                    </a>
                  </div>
                )}
              </th>
              <td>{d.environment}</td>
              <td>
                <time dateTime={d.deployed_at}>{formatInstant(d.deployed_at)}</time>
              </td>
              <td>
                {SOURCES[d.source]}
                <div class="muted small" title="external_id: the idempotency key">
                  {d.external_id}
                </div>
              </td>
              <td>
                <SmokeList smoke={d.smoke} goalNames={goalNames} />
              </td>
              <td class="actions">
                <a href={compareHref(site, d.id)}>
                  Compare on Overview<span class="sr-only"> since {d.version}</span>
                </a>
                {canDelete && <DeleteMarker deployment={d} onDeleted={onDeleted} />}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
