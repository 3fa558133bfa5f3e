/**
 * Cursor paging for the report and session lists. The cursor lives in the URL (?cursor=…), so
 * a page can be bookmarked; the API only pages forward, so the way back is "First page" (and
 * the browser's Back button, since every page is a history entry).
 */
import { useEffect, useRef } from "preact/hooks";
import { query, setQuery } from "../state/location";

export function urlCursor(): string | undefined {
  return query.value.get("cursor") || undefined;
}

/** Drops the cursor when `key` changes after the first render (e.g. another period picked elsewhere). */
export function useCursorReset(key: string): void {
  const previous = useRef(key);
  useEffect(() => {
    if (previous.current === key) return;
    previous.current = key;
    if (urlCursor()) setQuery({ cursor: undefined }, true);
  }, [key]);
}

export function Pager({ label, nextCursor }: { label: string; nextCursor: string | null }) {
  const onLaterPage = urlCursor() !== undefined;
  if (!onLaterPage && !nextCursor) return null;
  return (
    <nav class="table-pager" aria-label={`${label} pages`}>
      {onLaterPage && (
        <button type="button" onClick={() => setQuery({ cursor: undefined })}>
          First page
        </button>
      )}
      {nextCursor && (
        <button type="button" onClick={() => setQuery({ cursor: nextCursor })}>
          Next page
        </button>
      )}
    </nav>
  );
}
