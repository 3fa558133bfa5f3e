/** A copy button for snippets, secrets and commands; says "Copied" where a screen reader hears it. */
import { useState } from "preact/hooks";

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState<"" | "Copied" | "Copy failed: select the text and copy it">("");
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setDone("Copied"),
      () => setDone("Copy failed: select the text and copy it"),
    );
  return (
    <span class="copy">
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span role="status" class="copy-status">
        {done}
      </span>
    </span>
  );
}

/** A value shown for copying: in a read-only block with its copy button. */
export function CopyBlock({ text, label }: { text: string; label: string }) {
  return (
    <div class="copy-block">
      <pre tabIndex={0} aria-label={label}>
        <code>{text}</code>
      </pre>
      <CopyButton text={text} label={`Copy ${label.toLowerCase()}`} />
    </div>
  );
}
