/**
 * The path pattern filter of the pages and vitals tables (the API's `page` parameter: a path,
 * or a pattern with * wildcards). The applied pattern lives in the URL; a pattern the API
 * refuses is shown next to the input, in the API's words.
 */
import { useEffect, useState } from "preact/hooks";
import type { ApiProblem } from "../api/client";

export function PatternFilter({
  id,
  value,
  problem,
  onApply,
}: {
  /** Unique on the page: the input's id, and the prefix of its hint's and error's. */
  id: string;
  value: string;
  problem?: ApiProblem | undefined;
  onApply: (pattern: string) => void;
}) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const described = [`${id}-hint`, problem ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <form
      class="table-filter"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        onApply(draft.trim());
      }}
    >
      <label for={id}>Filter by pattern</label>
      <div class="table-filter-row">
        <input
          id={id}
          type="search"
          value={draft}
          placeholder="/blog/*"
          spellcheck={false}
          autocomplete="off"
          aria-invalid={problem ? true : undefined}
          aria-describedby={described}
          onInput={(event) => setDraft((event.target as HTMLInputElement).value)}
        />
        <button type="submit">Filter</button>
        {value && (
          <button type="button" onClick={() => onApply("")}>
            Clear filter
          </button>
        )}
      </div>
      <span id={`${id}-hint`} class="hint">
        A path, or a pattern with * for anything (/blog/* matches every blog page).
      </span>
      {problem && (
        <span id={`${id}-error`} class="field-problem" role="alert">
          {problem.message}
        </span>
      )}
    </form>
  );
}
