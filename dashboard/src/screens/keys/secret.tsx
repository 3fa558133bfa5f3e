/** A key just issued: its secret, shown this once (Wren keeps only its hash), until the reader has it. */
import { useLayoutEffect, useRef } from "preact/hooks";
import { CopyBlock } from "../../ui/copy";
import type { NewApiKey } from "./form";

export function KeySecret({ created, onDone }: { created: NewApiKey; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useLayoutEffect(() => heading.current?.focus(), []);
  return (
    <section class="ak-once" aria-labelledby="key-secret-title">
      <h2 id="key-secret-title" tabIndex={-1} ref={heading}>
        Key created: copy it now
      </h2>
      <p>
        <strong>Warning: shown once.</strong> Wren keeps only a hash of the key and cannot show it again. Store it where its user
        keeps secrets (a password manager, the CI's secret store). Lost it? Revoke it and create another.
      </p>
      <p class="muted">
        {created.name} <code>{created.prefix}…</code>: {created.scopes.join(", ")}
      </p>
      <CopyBlock text={created.key} label="API key" />
      <button type="button" class="primary" onClick={onDone}>
        I have copied the key
      </button>
    </section>
  );
}
