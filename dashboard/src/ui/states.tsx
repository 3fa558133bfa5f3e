/** Loading, failure and empty states, one look for every screen. */
import type { ComponentChildren } from "preact";
import type { ApiProblem } from "../api/client";
import { clearFilters } from "../state/filters";
import type { Load } from "../state/load";
import { setQuery } from "../state/location";

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Loading {what}…
    </p>
  );
}

/** The API's own words; a missing scope is named, with what to do about it. */
export function Failure({ problem, retry }: { problem: ApiProblem; retry?: () => void }) {
  if (problem.status === 403 && problem.requiredScope) return <NeedsScopeNotice scope={problem.requiredScope} />;
  if (problem.field === "filter") return <FilterRefused problem={problem} />;
  return (
    <div class="failure" role="alert">
      <p>{problem.message}</p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

/**
 * The filters cannot be read over this period (a 422: it starts before the per-session rows
 * retention keeps): said plainly, with the two ways out.
 */
function FilterRefused({ problem }: { problem: ApiProblem }) {
  return (
    <div class="report-note" role="note">
      <p>Filters cannot be read over this period. {problem.message.replace(/^filter: /, "").replace(/^./, (c) => c.toUpperCase())}</p>
      <p>
        <button type="button" onClick={() => setQuery({ period: "7d", from: undefined, to: undefined })}>
          Show 7 days
        </button>{" "}
        <button type="button" onClick={clearFilters}>
          Clear filters
        </button>
      </p>
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/** Names the scope a screen (or a part of one: `what`) needs, and how to get a key with it. */
export function NeedsScopeNotice({ scope, what = "This screen" }: { scope: string; what?: string }) {
  return (
    <div class="needs-scope" role="note">
      <p>
        {what} needs a key with the <code>{scope}</code> scope. Ask an admin for one (<code>npx wren keys create --scopes {scope}</code>),
        then sign in with it.
      </p>
    </div>
  );
}

/** Renders a load: its loading and failed states, or `children` with the data. */
export function Loaded<T>({ load, what, children }: { load: Load<T> & { reload(): void }; what: string; children: (data: T) => ComponentChildren }) {
  if (load.status === "loading") return <Loading what={what} />;
  if (load.status === "failed") return <Failure problem={load.problem} retry={load.reload} />;
  return <>{children(load.data)}</>;
}
