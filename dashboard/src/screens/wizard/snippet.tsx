/** Wizard step 2: the site's snippet to paste, and live verification that it works. */
import type { Site } from "../../api/client";
import { CopyBlock } from "../../ui/copy";
import { StepHeading } from "./steps";
import { VerificationStatus } from "./verify";

/** `verified`: the first beacon has arrived (the goal step then opens below, so "Next" goes). */
export function SnippetStep({ site, verified, onVerified, onNext }: { site: Site; verified: boolean; onVerified(): void; onNext(): void }) {
  const others = site.allowlist.filter((host) => host !== site.domain);
  return (
    <section aria-labelledby="wizard-step-heading" class="wizard-step">
      <StepHeading>Install the snippet</StepHeading>
      <p>
        Paste this tag into the <code>&lt;head&gt;</code> of every page of <strong>{site.domain}</strong>. It loads the tracker from this
        Wren server; no cookie is set and nothing else is needed.
      </p>
      <CopyBlock text={site.snippet} label="Snippet" />
      <p class="hint">
        The collector accepts beacons only from pages on {site.domain}
        {others.length > 0 && <> (and {others.join(", ")})</>}: on any other hostname, localhost included, the snippet records nothing.
      </p>
      {site.s2s_token && (
        <details class="wizard-token">
          <summary>Server-side token (for conversions posted from your backend)</summary>
          <p class="warning" role="note">
            Copy it now if you need it: it is not shown again. Rotating it later gives a new one.
          </p>
          <CopyBlock text={site.s2s_token} label="Server-side token" />
        </details>
      )}
      <h3>Verification</h3>
      <VerificationStatus site={site} onVerified={onVerified} />
      {!verified && (
        <div class="row wizard-actions">
          <button type="button" class="primary" onClick={onNext}>
            Next: create your first goal
          </button>
          <span class="hint">No need to wait: verification shows on the Overview too.</span>
        </div>
      )}
    </section>
  );
}
