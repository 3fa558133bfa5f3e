/**
 * The shared dashboard: no sign-in, no settings, no keys — the link's site and its report
 * screens only (Overview, Pages, Sources, Goals), read-only, with the period picker and the
 * filters (every figure k-filtered by the API, as for a read:reports key). A password link asks
 * for its password first; a link that no longer opens says so.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiProblem } from "../api/client";
import { SITE_SCREENS } from "../screens";
import { linkTo, navigate, path } from "../state/location";
import { openShare, unlockShare, type SharedSite } from "../state/share";
import { FilterBar, FilteredScreen } from "../ui/filter-bar";
import { ActionProblem, useOneAction } from "../ui/one-action";
import { PeriodPicker } from "../ui/period";

/** The screens a shared link shows, in tab order. */
export const SHARED_SCREENS = SITE_SCREENS.filter((s) => ["overview", "pages", "sources", "goals"].includes(s.slug));

type State =
  { kind: "opening" } | { kind: "locked" } | { kind: "open"; site: SharedSite } | { kind: "failed"; problem: ApiProblem };

function PasswordPrompt({ onOpened }: { onOpened: () => void }) {
  const [password, setPassword] = useState("");
  const action = useOneAction(
    async () => {
      await unlockShare(password);
      onOpened();
    },
    (refused) =>
      refused.status === 401
        ? "That is not the password of this link."
        : refused.status === 429
          ? "Too many attempts: wait a minute and try again."
          : undefined,
  );
  return (
    <main id="main" class="sign-in">
      <h1>Shared dashboard</h1>
      <form onSubmit={(e) => void action.start(e)}>
        <label for="share-password">Password</label>
        <input
          id="share-password"
          type="password"
          autoComplete="off"
          required
          value={password}
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
          aria-invalid={action.problem ? true : undefined}
          aria-errormessage={action.problem ? "share-problem" : undefined}
        />
        <button type="submit" disabled={action.busy}>
          {action.busy ? "Opening…" : "Open"}
        </button>
        <ActionProblem action={action} id="share-problem" />
        <p class="hint">Whoever shared this dashboard set a password for it.</p>
      </form>
    </main>
  );
}

function SharedSitePage({ site }: { site: SharedSite }) {
  const slug = /^\/s\/[^/]+\/([a-z-]+)\/?$/.exec(path.value)?.[1] ?? "overview";
  const screen = SHARED_SCREENS.find((s) => s.slug === slug) ?? SHARED_SCREENS[0]!;
  useEffect(() => {
    document.title = `${screen.title} · ${site.name} · Wren`;
  }, [screen, site.name]);
  const Screen = screen.component;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Wren</span>
        <span class="shared-site">{site.name}</span>
        <span class="hint">Shared dashboard · read-only</span>
      </header>
      <main id="main" tabIndex={-1}>
        <nav aria-label="Site" class="tabs">
          {SHARED_SCREENS.map((s) => (
            <a
              key={s.slug}
              href={linkTo(`/s/${encodeURIComponent(site.id)}/${s.slug}`)}
              aria-current={s.slug === screen.slug ? "page" : undefined}
            >
              {s.title}
            </a>
          ))}
        </nav>
        <div class="screen-head">
          <h1>{screen.title}</h1>
          <PeriodPicker />
        </div>
        <FilterBar site={site.id} />
        <FilteredScreen>
          <Screen site={site.id} />
        </FilteredScreen>
      </main>
    </>
  );
}

export function ShareApp() {
  const [state, setState] = useState<State>({ kind: "opening" });
  const open = () =>
    openShare().then(
      (opened) => {
        if (opened === "locked") return setState({ kind: "locked" });
        // The link's own site, whatever the path below the link names.
        if (!path.value.startsWith(`/s/${encodeURIComponent(opened.id)}/`))
          navigate(`/s/${encodeURIComponent(opened.id)}/overview`, {}, true);
        setState({ kind: "open", site: opened });
      },
      (error: unknown) => setState({ kind: "failed", problem: ApiProblem.from(error) }),
    );
  useEffect(() => void open(), []);
  if (state.kind === "opening") return <p class="boot">Loading the shared dashboard…</p>;
  if (state.kind === "locked") return <PasswordPrompt onOpened={() => void open()} />;
  if (state.kind === "failed")
    return (
      <main id="main" class="sign-in">
        <h1>Shared dashboard</h1>
        <p class="failure" role="alert">
          {state.problem.status === 401
            ? "This link no longer opens: it may have been revoked or have expired."
            : state.problem.message}
        </p>
      </main>
    );
  return <SharedSitePage site={state.site} />;
}
