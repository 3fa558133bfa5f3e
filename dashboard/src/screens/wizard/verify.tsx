/**
 * Live verification of a new site's snippet: GET /api/v1/sites/{id}/verification every 2 s until
 * the first beacon has arrived. The last answer stays on screen between reads, so the status
 * line (an aria-live region) changes once, when the site is verified, rather than at every poll.
 */
import { useEffect, useRef } from "preact/hooks";
import { api, unwrap, type Schemas, type Site } from "../../api/client";
import { useLoad, usePoll } from "../../state/load";
import { formatInstant } from "../../ui/time";
import { Failure } from "../../ui/states";

type Verification = Schemas["SiteVerification"];

const POLL_MS = 2000;

function VerifiedDetails({ verification, timeZone }: { verification: Verification; timeZone: string }) {
  return (
    <dl class="facts">
      <dt>Origin</dt>
      <dd>
        <code>{verification.origin ?? "not recorded"}</code>
      </dd>
      <dt>Page</dt>
      <dd>{verification.page ? <code>{verification.page}</code> : <span class="muted">not recorded</span>}</dd>
      <dt>First seen</dt>
      <dd>{verification.first_seen ? formatInstant(verification.first_seen, timeZone, true) : <span class="muted">not recorded</span>}</dd>
    </dl>
  );
}

export function VerificationStatus({ site, onVerified }: { site: Site; onVerified?(): void }) {
  const load = useLoad(() => unwrap(api.GET("/api/v1/sites/{id}/verification", { params: { path: { id: site.id } } })), [site.id]);
  const last = useRef<Verification | null>(null);
  if (load.status === "ready") last.current = load.data;
  const shown = last.current;
  const verified = shown?.verified === true;
  // A refusal (no read:sites, a deleted site) will not change by asking again; a dropped
  // connection may, so polling goes on through it.
  const refused = load.status === "failed" && load.problem.status >= 400 && load.problem.status < 500;
  usePoll(!verified && !refused, POLL_MS, load.reload);
  useEffect(() => {
    if (verified) onVerified?.();
  }, [verified]);

  return (
    <div class={verified ? "verification wizard-verified" : "verification"}>
      {!refused && (
        <p role="status" aria-live="polite" class={verified ? "verify-status verified" : "verify-status"}>
          {verified ? (
            <>
              <span aria-hidden="true">✓ </span>
              <strong class="success">Verified</strong>: the first pageview arrived from <code>{shown.origin}</code>
              {shown.page && (
                <>
                  {" "}
                  (<code>{shown.page}</code>)
                </>
              )}
              .
            </>
          ) : shown ? (
            <>
              <span class="pulse" aria-hidden="true" />
              Waiting for the first pageview from {site.domain}…
            </>
          ) : (
            "Checking whether a pageview has arrived…"
          )}
        </p>
      )}
      {verified && <VerifiedDetails verification={shown} timeZone={site.timezone} />}
      {!verified && !refused && (
        <p class="hint">
          Open any page of {site.domain} that carries the snippet, in a normal browser window. This page checks every 2 seconds. Nothing
          yet? Look for the tag in the page's source, and check that an extension is not blocking it.
        </p>
      )}
      {load.status === "failed" && <Failure problem={load.problem} retry={load.reload} />}
    </div>
  );
}
