/** `wren props list|add|remove --site SITE [NAME]`: the custom property names a site keeps (worker/domain/props.ts). */
import { addSiteProp, removeSiteProp, siteProps } from "../../worker/domain/props";
import { PROP_NAME_PATTERN } from "../../worker/lib/beacon-limits";
import { CliError, print, table } from "../output";
import type { Settings } from "../settings";
import { openSiteFlag } from "../site";
import type { Invocation, PROPS_LIST_OPTIONS, PROPS_NAME_OPTIONS } from "./registry";

function propName(name: string | undefined): string {
  if (!name || !PROP_NAME_PATTERN.test(name))
    throw new CliError("NAME: must be a property name (1–64 of A–Z a–z 0–9 _ . : -)", 2);
  return name;
}

export async function listPropsCommand(settings: Settings, { values }: Invocation<typeof PROPS_LIST_OPTIONS>): Promise<void> {
  const { db, site } = await openSiteFlag(settings, values.site);
  const props = await siteProps(db, site.id);
  print(values.json ?? false, props, () => {
    const names = props.names.length > 0 ? props.names.join("\n") : "(no names: props are dropped, except url and file)";
    const drops = table(
      Object.entries(props.drops).map(([reason, count]) => ({ reason, count })),
      ["reason", "count"],
    );
    return `${names}\n\nDropped since ${props.drops_since}:\n${drops}`;
  });
}

export async function addPropCommand(
  settings: Settings,
  { values, positionals }: Invocation<typeof PROPS_NAME_OPTIONS>,
): Promise<void> {
  const name = propName(positionals[0]);
  const { db, site } = await openSiteFlag(settings, values.site);
  const { created } = await addSiteProp(db, site.id, name);
  print(
    values.json ?? false,
    { site: site.id, name, created },
    () => `${created ? "Allowed" : "Already allowed:"} ${name} on ${site.id}.`,
  );
}

export async function removePropCommand(
  settings: Settings,
  { values, positionals }: Invocation<typeof PROPS_NAME_OPTIONS>,
): Promise<void> {
  const name = propName(positionals[0]);
  const { db, site } = await openSiteFlag(settings, values.site);
  await removeSiteProp(db, site.id, name);
  print(
    values.json ?? false,
    { site: site.id, name, removed: true },
    () => `No longer kept: ${name} on ${site.id} (props stored already stay).`,
  );
}
