/** Loading, failure and empty states, one look for every screen. */
import type { ComponentChildren } from "preact";
import type { ApiProblem } from "../api/client";
import type { Load } from "../state/load";

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
