/** The active keys as a table: name, prefix, scopes, sites, limit, created, last used; usage and revoke. */
import type { ApiKey } from "../../api/client";
import { sites } from "../../state/sites";
import { ConfirmButton } from "../../ui/confirm";
import { When } from "../../ui/when";

export const usageButtonId = (key: ApiKey) => `key-usage-button-${key.id}`;
const headerId = (key: ApiKey) => `key-${key.id}`;

/** What the key reaches, in words (docs/api.md, What a key reaches). */
function sitesText(key: ApiKey): string {
  if (key.scopes.includes("admin") || key.sites === null) return "Every site (admin)";
  if (key.sites.includes("*")) return "Every site (*)";
  if (key.sites.length === 0) return "Only the sites it creates (none yet)";
  const names = new Map((sites.value ?? []).map((s) => [s.id, s.name]));
  return key.sites.map((id) => names.get(id) ?? id).join(", ");
}

function rateText(key: ApiKey): string {
  return key.rate_limit ? `${key.rate_limit.requests} per ${key.rate_limit.per_seconds} s` : "Server default";
}

export function KeysTable({
  keys,
  currentId,
  usageOf,
  onUsage,
  onRevoke,
}: {
  keys: ApiKey[];
  /** The key this tab is signed in with. */
  currentId: string;
  usageOf: string | null;
  onUsage: (key: ApiKey) => void;
  onRevoke: (key: ApiKey) => Promise<unknown>;
}) {
  return (
    <div class="table-wrap">
      <table class="key-list">
        <caption>Active keys, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Scopes</th>
            <th scope="col">Sites</th>
            <th scope="col">Rate limit</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => {
            const current = key.id === currentId;
            return (
              <tr key={key.id} data-key={key.id}>
                <th scope="row" id={headerId(key)}>
                  {key.name}
                  {current && <span class="badge key-current">this key</span>}
                </th>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>
                  <ul class="key-scope-list">
                    {key.scopes.map((scope) => (
                      <li key={scope}>
                        <code>{scope}</code>
                      </li>
                    ))}
                  </ul>
                </td>
                <td>{sitesText(key)}</td>
                <td>{rateText(key)}</td>
                <td>
                  <When iso={key.created_at} />
                </td>
                <td>
                  <When iso={key.last_used_at} empty="Never" />
                </td>
                <td>
                  <div class="ak-actions">
                    <button
                      type="button"
                      id={usageButtonId(key)}
                      aria-expanded={usageOf === key.id}
                      aria-controls={usageOf === key.id ? "key-usage" : undefined}
                      aria-describedby={headerId(key)}
                      onClick={() => onUsage(key)}
                    >
                      Usage
                    </button>
                    <ConfirmButton
                      label="Revoke"
                      question={
                        current
                          ? "This is the key you are signed in with: revoking it signs you out, and it cannot be restored. Revoke it?"
                          : "Revoke this key? It stops working at once and cannot be restored."
                      }
                      confirmLabel="Revoke key"
                      busyLabel="Revoking…"
                      describedBy={headerId(key)}
                      onConfirm={() => onRevoke(key)}
                    />
                  </div>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
