/**
 * The Overview's deployment markers: the "Compare since" choice (kept in the URL as
 * ?deployment=…) and the latest markers with their smoke-test conversions.
 */
import type { Schemas } from "../../api/client";
import { linkTo, setQuery } from "../../state/location";
import { formatInstant } from "../../ui/time";
import { SmokeList } from "./smoke";

type Deployment = Schemas["Deployment"];

const SHOWN = 10;

/** ?deployment=none: the last 24 closed hours, even when the site has markers (the API's own value). */
export const LAST_24_HOURS = "none";

export function markerName(d: Deployment, timeZone?: string): string {
  const where = d.environment === "production" ? "" : ` · ${d.environment}`;
  return `${d.version}${where} · ${formatInstant(d.deployed_at, timeZone)}`;
}

export function CompareSince({
  deployments,
  value,
  extra,
  timeZone,
}: {
  deployments: readonly Deployment[];
  /** The URL's ?deployment=…; "" for the latest marker. */
  value: string;
  /** The compared marker as the Overview answered it: it may be older than the listed ones. */
  extra: Deployment | null;
  timeZone?: string;
}) {
  const options = extra && !deployments.some((d) => d.id === extra.id) ? [extra, ...deployments] : deployments;
  // An id not named yet (still loading, or no such marker) keeps its own option, so the
  // select shows what the URL asks for rather than silently "the latest".
  const unnamed = value !== "" && value !== LAST_24_HOURS && !options.some((d) => d.id === value);
  return (
    <label class="compare-since">
      <span>Compare since</span>
      <select value={value} onChange={(event) => setQuery({ deployment: (event.target as HTMLSelectElement).value || undefined })}>
        <option value="">{options.length ? "The latest deployment" : "The last 24 closed hours (no marker yet)"}</option>
        {options.length > 0 && <option value={LAST_24_HOURS}>The last 24 closed hours</option>}
        {unnamed && <option value={value}>{value}</option>}
        {options.map((d) => (
          <option key={d.id} value={d.id}>
            {markerName(d, timeZone)}
          </option>
        ))}
      </select>
    </label>
  );
}

export function RecentMarkers({
  site,
  deployments,
  goalNames,
  timeZone,
}: {
  site: string;
  deployments: readonly Deployment[];
  goalNames: ReadonlyMap<string, string>;
  timeZone?: string;
}) {
  const all = linkTo(`/s/${encodeURIComponent(site)}/deployments`);
  if (deployments.length === 0) {
    return (
      <p class="muted">
        No deployment markers yet. <a href={all}>Record one, or set up the webhook</a>, to compare each release with the hours before it.
      </p>
    );
  }
  return (
    <>
      <ul class="marker-list">
        {deployments.slice(0, SHOWN).map((d) => (
          <li key={d.id}>
            <div class="marker-head">
              <strong>{d.version}</strong> <span class="muted">{d.environment}</span>{" "}
              <time dateTime={d.deployed_at}>{formatInstant(d.deployed_at, timeZone)}</time>{" "}
              <a href={compareHref(site, d.id)}>Compare since this</a>
            </div>
            <div class="marker-smoke">
              Smoke tests: <SmokeList smoke={d.smoke} goalNames={goalNames} timeZone={timeZone} />
            </div>
          </li>
        ))}
      </ul>
      {deployments.length > SHOWN && (
        <p>
          <a href={all}>All deployment markers</a>
        </p>
      )}
    </>
  );
}

/** The site's Overview compared since one marker, keeping this view's period. */
export function compareHref(site: string, deployment: string): string {
  const href = linkTo(`/s/${encodeURIComponent(site)}/overview`);
  return `${href}${href.includes("?") ? "&" : "?"}deployment=${encodeURIComponent(deployment)}`;
}
