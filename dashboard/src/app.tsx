/**
 * The app shell: sign-in until a key is accepted, then the header (site switcher, keys, sign
 * out), a site's tabs, and the screen the URL names.
 */
import { useEffect } from "preact/hooks";
import { linkTo, path, query } from "./state/location";
import { currentKey, isAdmin, managesPeople, person, signOut } from "./state/session";
import { reloadSites, sites } from "./state/sites";
import { AccountScreen, AuditScreen, InviteScreen, KeysScreen, PeopleScreen, SITE_SCREENS, WizardScreen } from "./screens";
import { SignInScreen } from "./screens/sign-in";
import { SitesScreen } from "./screens/sites";
import { FilterBar, FilteredScreen } from "./ui/filter-bar";
import { PeriodPicker } from "./ui/period";
import { RequiresScope } from "./ui/scope";
import { NeedsScopeNotice } from "./ui/states";

/** "/s/site_x/pages" → site and screen slug. */
function siteRoute(p: string): { site: string; slug: string } | null {
  const match = /^\/s\/([^/]+)(?:\/([a-z-]+))?\/?$/.exec(p);
  return match ? { site: decodeURIComponent(match[1]!), slug: match[2] ?? "overview" } : null;
}

/** The wizard's site once it is made (?site=… on /sites/new): the header shows it, not "Choose a site". */
function wizardSite(): string | null {
  return path.value === "/sites/new" ? query.value.get("site") : null;
}

function SiteSwitcher({ site, slug }: { site: string | null; slug: string }) {
  const list = sites.value ?? [];
  if (list.length === 0) return null;
  return (
    <label class="site-switcher">
      <span>Site</span>
      <select
        value={site ?? ""}
        onChange={(event) => {
          const next = (event.target as HTMLSelectElement).value;
          // Filters stay with their site: a goal or a page of one means nothing on another.
          if (next) location.assign(linkTo(`/s/${encodeURIComponent(next)}/${slug}`, ["period", "from", "to"]));
        }}
      >
        {site === null && <option value="">Choose a site</option>}
        {list.map((s) => (
          <option key={s.id} value={s.id}>
            {s.domain ? `${s.name} (${s.domain})` : s.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function Header({ site, slug }: { site: string | null; slug: string }) {
  const key = currentKey.value!;
  return (
    <header class="top">
      <a class="brand" href="/dashboard/">
        Wren
      </a>
      <SiteSwitcher site={site} slug={slug} />
      <nav aria-label="Account" class="account">
        {isAdmin.value && (
          <a href="/dashboard/keys" aria-current={path.value === "/keys" ? "page" : undefined}>
            Keys
          </a>
        )}
        {managesPeople.value && (
          <a href="/dashboard/people" aria-current={path.value === "/people" ? "page" : undefined}>
            People
          </a>
        )}
        {managesPeople.value && (
          <a href="/dashboard/audit" aria-current={path.value === "/audit" ? "page" : undefined}>
            Audit
          </a>
        )}
        {person.value ? (
          <a class="who" href="/dashboard/account" title={key.scopes.join(", ")}>
            {person.value.account.name}
          </a>
        ) : (
          <span class="who" title={key.scopes.join(", ")}>
            {key.name} <code>{key.prefix}…</code>
          </span>
        )}
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </nav>
    </header>
  );
}

function SiteTabs({ site, slug }: { site: string; slug: string }) {
  return (
    <nav aria-label="Site" class="tabs">
      {SITE_SCREENS.map((screen) => (
        <a
          key={screen.slug}
          href={linkTo(`/s/${encodeURIComponent(site)}/${screen.slug}`)}
          aria-current={screen.slug === slug ? "page" : undefined}
        >
          {screen.title}
        </a>
      ))}
    </nav>
  );
}

function SitePage({ site, slug }: { site: string; slug: string }) {
  const screen = SITE_SCREENS.find((s) => s.slug === slug);
  const name = sites.value?.find((s) => s.id === site)?.name ?? site;
  useEffect(() => {
    document.title = `${screen?.title ?? "Not found"} · ${name} · Wren`;
  }, [screen, name]);
  if (!screen) return <p>There is no such screen. Pick one from the tabs.</p>;
  const Screen = screen.component;
  return (
    <>
      <SiteTabs site={site} slug={slug} />
      <div class="screen-head">
        <h1>{screen.title}</h1>
        {screen.periodic && <PeriodPicker />}
      </div>
      {screen.periodic && <FilterBar site={site} />}
      <RequiresScope scopes={screen.scopes}>
        {screen.periodic ? (
          <FilteredScreen>
            <Screen site={site} />
          </FilteredScreen>
        ) : (
          <Screen site={site} />
        )}
      </RequiresScope>
    </>
  );
}

function Routes() {
  const p = path.value;
  const route = siteRoute(p);
  if (route) return <SitePage site={route.site} slug={route.slug} />;
  if (p === "/keys") return isAdmin.value ? <KeysScreen /> : <NeedsScopeNotice scope="admin" />;
  if (p === "/people") return managesPeople.value ? <PeopleScreen /> : <NeedsScopeNotice scope="admin" />;
  if (p === "/audit") return managesPeople.value ? <AuditScreen /> : <NeedsScopeNotice scope="admin" />;
  if (p === "/account" && person.value) return <AccountScreen />;
  if (p === "/sites/new") return <WizardScreen />;
  if (p === "/" || p === "") return <SitesScreen />;
  return (
    <p>
      There is nothing at this address. <a href="/dashboard/">Go to your sites</a>.
    </p>
  );
}

export function App() {
  const key = currentKey.value;
  useEffect(() => {
    if (key) void reloadSites().catch(() => (sites.value = []));
  }, [key]);
  // The invitation page works signed out (it signs the new person in).
  if (path.value === "/invite") return <InviteScreen />;
  if (!key) return <SignInScreen />;
  const route = siteRoute(path.value);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <Header site={route?.site ?? wizardSite()} slug={route?.slug ?? "overview"} />
      <main id="main" tabIndex={-1}>
        <Routes />
      </main>
    </>
  );
}
