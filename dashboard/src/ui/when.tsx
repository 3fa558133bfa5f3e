/** A moment from the API, in the reader's time zone, with the exact ISO time as its machine value. Generic; Keys uses it too. */
const FORMAT = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeStyle: "short" });

export function whenText(iso: string): string {
  return FORMAT.format(new Date(iso));
}

export function When({ iso, empty = "—" }: { iso: string | null | undefined; empty?: string }) {
  if (!iso) return <span class="muted">{empty}</span>;
  return (
    <time dateTime={iso} title={iso}>
      {whenText(iso)}
    </time>
  );
}
