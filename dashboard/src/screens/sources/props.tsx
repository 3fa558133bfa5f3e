/**
 * The Sources screen's Properties panel: the site's allowed custom property names
 * (GET /api/v1/sites/{id}/props) to choose from, each shown as the other panels are
 * (`dimension=prop:NAME` through the breakdown panel: visitors, the events that carried the
 * value, the `other` row, qualifiers, filters and goal followed); a value's row adds the filter
 * `prop:NAME:value`. A site without names says how to allow one.
 */
import { api, unwrap } from "../../api/client";
import { useLoad } from "../../state/load";
import type { Filter } from "../../state/filters";
import { linkTo } from "../../state/location";
import { hasScope } from "../../state/session";
import { Empty, NeedsScopeNotice } from "../../ui/states";
import type { PanelSpec } from "./dimensions";
import { BreakdownPanel } from "./panel";

export const PROPS_PANEL_ID = "props";

export function PropsPanel({
  site,
  goal,
  goalName,
  filters,
}: {
  site: string;
  goal: string;
  goalName: string;
  filters: readonly Filter[];
}) {
  const canList = hasScope("read:sites");
  const load = useLoad(
    () =>
      canList
        ? unwrap(api.GET("/api/v1/sites/{id}/props", { params: { path: { id: site } } })).then((d) => d.names)
        : Promise.resolve(null),
    [site, canList],
  );
  if (load.status !== "ready") return null;
  const names = load.data;
  if (names && names.length > 0) {
    const spec: PanelSpec = {
      id: PROPS_PANEL_ID,
      title: "Properties",
      chooser: "select",
      dimensions: names.map((name) => ({ dimension: `prop:${name}`, label: name })),
    };
    return <BreakdownPanel site={site} spec={spec} goal={goal} goalName={goalName} filters={filters} />;
  }
  return (
    <section class="sources-panel" aria-labelledby={`${PROPS_PANEL_ID}-title`}>
      <div class="sources-panel-head">
        <h2 id={`${PROPS_PANEL_ID}-title`}>Properties</h2>
      </div>
      {names === null ? (
        <NeedsScopeNotice scope="read:sites" what="The custom properties" />
      ) : (
        <Empty>
          <p>No custom properties yet.</p>
          <p>
            Allow a property's name in the site's <a href={linkTo(`/s/${encodeURIComponent(site)}/settings`)}>Settings</a>, then
            send it from your pages: <code>{'wren.track("signup", {props: {plan: "pro"}})'}</code> or <code>data-props</code> on
            the snippet.
          </p>
        </Empty>
      )}
    </section>
  );
}
