/**
 * A moment from the API with the exact ISO time as its machine value, written as every date of
 * the dashboard is (ui/time.ts formatInstant): in the reader's time zone unless one is given,
 * always naming the zone. Generic; Keys and Alerts use it.
 */
import { formatInstant } from "./time";

export function whenText(iso: string, timeZone?: string): string {
  return formatInstant(iso, timeZone);
}

export function When({ iso, empty = "—", timeZone }: { iso: string | null | undefined; empty?: string; timeZone?: string }) {
  if (!iso) return <span class="muted">{empty}</span>;
  return (
    <time dateTime={iso} title={iso}>
      {whenText(iso, timeZone)}
    </time>
  );
}
