/**
 * The site's inbound deployment webhook (POST /api/v1/sites/{id}/deployment-hook): the URL and a
 * new secret, shown once (Wren derives the secret and keeps no copy), with the GitHub setup and
 * a signed curl call for any other sender. Asking again rotates the secret.
 */
import { useState } from "preact/hooks";
import { api, ApiProblem, unwrap, type Schemas } from "../../api/client";
import { CopyBlock } from "../../ui/copy";
import { Failure } from "../../ui/states";

type Hook = Schemas["DeploymentHook"];

/** The Standard Webhooks signature from docs/api.md, with this site's URL and secret filled in. */
function curlExample(hook: Hook): string {
  return [
    `SECRET='${hook.secret}'`,
    `VERSION=$(git rev-parse --short HEAD)      # or a tag, a build number`,
    `BODY="{\\"version\\":\\"$VERSION\\",\\"environment\\":\\"production\\"}"`,
    `ID="deploy-$(date +%s)"; TS=$(date +%s)`,
    `KEY=$(printf '%s' "\${SECRET#whsec_}" | base64 -d | od -An -tx1 | tr -d ' \\n')`,
    `SIG=$(printf '%s.%s.%s' "$ID" "$TS" "$BODY" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY" -binary | base64)`,
    `curl -X POST '${hook.url}' -H "Content-Type: application/json" \\`,
    `  -H "webhook-id: $ID" -H "webhook-timestamp: $TS" -H "webhook-signature: v1,$SIG" -d "$BODY"`,
  ].join("\n");
}

function HookDetails({ hook }: { hook: Hook }) {
  return (
    <div class="hook-details">
      <p class="warning" role="alert">
        <strong>Copy the secret now: it will not be shown again.</strong> Wren keeps no copy; if it is lost, rotate it and update the
        sender.
      </p>
      <h3>Payload URL</h3>
      <CopyBlock text={hook.url} label="Payload URL" />
      <h3>Secret</h3>
      <CopyBlock text={hook.secret} label="Webhook secret" />

      <h3>From GitHub</h3>
      <ol class="instructions">
        <li>
          In the repository: <strong>Settings → Webhooks → Add webhook</strong>.
        </li>
        <li>
          <strong>Payload URL</strong>: the URL above.
        </li>
        <li>
          <strong>Content type</strong>: <code>application/json</code> (the default form encoding is refused).
        </li>
        <li>
          <strong>Secret</strong>: the whole <code>whsec_…</code> string above.
        </li>
        <li>
          <strong>Which events would you like to trigger this webhook?</strong> <em>Let me select individual events</em>, tick{" "}
          <strong>Deployment statuses</strong> and untick <em>Pushes</em>.
        </li>
        <li>
          <strong>Add webhook</strong>. GitHub signs each delivery with <code>X-Hub-Signature-256</code>. Each deployment status whose
          state is <code>success</code> records a marker: the deployment's commit SHA as the version, its environment, source GitHub.
          Other states and events (the first <code>ping</code> too) are accepted and ignored.
        </li>
      </ol>

      <h3>From any other sender (Standard Webhooks)</h3>
      <p>
        Sign <code>id.timestamp.body</code> with HMAC-SHA256, keyed with the bytes after <code>whsec_</code> (base64-decoded), and send
        the headers <code>webhook-id</code>, <code>webhook-timestamp</code> (Unix seconds, within 5 minutes) and{" "}
        <code>webhook-signature: v1,&lt;base64&gt;</code>. The body is that of <code>POST /api/v1/deployments</code> without{" "}
        <code>site</code>. With curl and openssl, e.g. in a CI step:
      </p>
      <CopyBlock text={curlExample(hook)} label="Signed curl example" />
    </div>
  );
}

export function WebhookSection({ site }: { site: string }) {
  const [hook, setHook] = useState<Hook | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem | null>(null);
  const create = () => {
    setBusy(true);
    setProblem(null);
    unwrap(api.POST("/api/v1/sites/{id}/deployment-hook", { params: { path: { id: site } } })).then(
      (answer) => {
        setBusy(false);
        setHook(answer);
      },
      (error: unknown) => {
        setBusy(false);
        setProblem(ApiProblem.from(error));
      },
    );
  };
  return (
    <div class="webhook">
      <p>
        GitHub (or any sender that signs its deliveries) can record a marker at each successful deployment. The webhook needs no API key:
        each delivery is signed with the site's secret.
      </p>
      <p class="hint">
        {hook
          ? "Rotating makes a new secret: the one below stops working at once."
          : "If this site already has a webhook, this rotates its secret: the old one stops working at once."}
      </p>
      <button type="button" class={hook ? undefined : "primary"} disabled={busy} onClick={create}>
        {busy ? "Working…" : hook ? "Rotate secret" : "Create webhook secret"}
      </button>
      {problem && <Failure problem={problem} />}
      {hook && <HookDetails key={hook.secret} hook={hook} />}
    </div>
  );
}
