/**
 * The signing secrets of a rule just made. Wren derives them, never stores them, and shows
 * them in this one answer only, so they stay on screen until the reader says they have them.
 */
import { useLayoutEffect, useRef } from "preact/hooks";
import type { AlertRule } from "./describe";
import { CopyBlock } from "../../ui/copy";

export function AlertSecrets({ rule, summary, onDone }: { rule: AlertRule; summary: string; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), []);
  return (
    <section class="ak-once" aria-labelledby="alert-secrets-title">
      <h3 id="alert-secrets-title" tabIndex={-1} ref={heading}>
        Rule created: copy its signing secrets now
      </h3>
      <p>
        <strong>Warning: shown once.</strong> Wren does not keep these secrets and cannot show them again. Each receiver checks
        the <code>webhook-signature</code> header with its destination's secret. Lost one? Delete the rule and make it again, or
        replace its destinations through the API: either makes new secrets.
      </p>
      <p class="muted">
        {summary} <code>{rule.id}</code>
      </p>
      <ol class="alert-secret-list">
        {rule.destinations.map((d, i) => (
          <li key={d.id}>
            <p>
              <span class="ak-url">{d.url}</span>{" "}
              <span class="muted">({d.format === "slack" ? "Slack, unsigned: its secret is not used" : "standard, signed"})</span>
            </p>
            {d.secret ? (
              <CopyBlock text={d.secret} label={`Signing secret ${i + 1}`} />
            ) : (
              <p class="muted">No secret in the answer.</p>
            )}
          </li>
        ))}
      </ol>
      <button type="button" class="primary" onClick={onDone}>
        I have copied the secrets
      </button>
    </section>
  );
}
