/** A site's custom property names (domain/props.ts): list with the recent drops, allow one, stop one. */
import { z } from "zod";
import { MAX_SITE_PROPS, PROP_DROP_DAYS, PROP_DROP_REASONS, addSiteProp, removeSiteProp, siteProps } from "../../domain/props";
import { PROP_NAME_PATTERN } from "../../lib/beacon-limits";
import { siteId } from "../../lib/ids";
import { siteParams } from "../params";
import { route } from "../registry";

const sitePropParams = z.strictObject({
  id: siteId.meta({ param: { description: "Site id" } }),
  name: z
    .string()
    .regex(PROP_NAME_PATTERN, "must be a property name (1–64 of A–Z a–z 0–9 _ . : -)")
    .meta({ param: { description: "Property name (1–64 of A–Z a–z 0–9 _ . : -)" } }),
});

const propName = z.object({ name: z.string() });
const sitePropsResource = z.object({
  names: z.array(z.string()).meta({
    description: `The names props are kept under (at most ${MAX_SITE_PROPS}), alphabetical; \`url\` and \`file\` are always kept.`,
  }),
  drops: z
    .object(
      Object.fromEntries(PROP_DROP_REASONS.map((r) => [r, z.number().int()])) as Record<
        (typeof PROP_DROP_REASONS)[number],
        z.ZodNumber
      >,
    )
    .meta({ description: `Props dropped per reason over the last ${PROP_DROP_DAYS} UTC days (today included).` }),
  drops_since: z.string().meta({ format: "date", description: "The first UTC day the drops count." }),
});

export const propRoutes = [
  route({
    operationId: "listSiteProps",
    method: "GET",
    path: "/api/v1/sites/:id/props",
    summary: "A site's custom property names, and the props dropped in the last 7 days per reason",
    tag: "Goals",
    auth: "key",
    scope: "read:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: {
      200: { description: "Names and drops.", schema: sitePropsResource },
      404: { description: "No such site." },
    },
    async handle({ db, params, reply }) {
      return reply(200, await siteProps(db, params.id));
    },
  }),
  route({
    operationId: "createSiteProp",
    method: "PUT",
    path: "/api/v1/sites/:id/props/:name",
    summary: "Keep props under this name (idempotent)",
    tag: "Goals",
    auth: "key",
    scope: "write:goals",
    params: sitePropParams,
    site: { from: "params", name: "id" },
    responses: {
      201: { description: "Allowed now.", schema: propName },
      200: { description: "Already allowed.", schema: propName },
      404: { description: "No such site." },
      422: {
        description: `The name is reserved (\`url\`, \`file\`), or the site allows ${MAX_SITE_PROPS} names already; \`field\` names it.`,
      },
    },
    async handle({ db, params, reply }) {
      const { created } = await addSiteProp(db, params.id, params.name);
      return reply(created ? 201 : 200, { name: params.name });
    },
  }),
  route({
    operationId: "deleteSiteProp",
    method: "DELETE",
    path: "/api/v1/sites/:id/props/:name",
    summary: "Stop keeping props under this name (props stored already stay)",
    tag: "Goals",
    auth: "key",
    scope: "write:goals",
    params: sitePropParams,
    site: { from: "params", name: "id" },
    responses: {
      204: { description: "No longer kept." },
      404: { description: "No such site, or the site does not allow the name." },
    },
    async handle({ db, params, reply }) {
      await removeSiteProp(db, params.id, params.name);
      return reply(204);
    },
  }),
];
