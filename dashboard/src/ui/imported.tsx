/**
 * The note under a report screen's freshness line saying what the report does with imported
 * days (imported-text.ts), with whether they are included as `data-included`.
 */
import { importedText, type ImportedDays } from "./imported-text";

export { importedSpans, type ImportedDays } from "./imported-text";

export function ImportedNote({ imported, leftOut }: { imported: ImportedDays | undefined; leftOut?: ImportedDays["reason"] }) {
  if (!imported) return null;
  const text = importedText(imported, leftOut);
  return (
    <p class="imported-note" role="note" data-testid="imported-note" data-included={String(imported.included && !leftOut)}>
      {text}
    </p>
  );
}
