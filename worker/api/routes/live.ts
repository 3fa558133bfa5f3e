/**
 * The live counter (scope read:reports, the site on the key's allowlist): visitors in the last
 * 5 and 30 minutes as bands that one session cannot move (reports/live.ts, privacy/live.ts).
 */
import { z } from "zod";
import { siteId } from "../../lib/ids";
import { readLive } from "../../reports/live";
import { kAnonymity } from "../../reports/privacy";
import { liveResponse } from "../../reports/schemas";
import { route } from "../registry";

export const liveRoutes = [
  route({
    operationId: "getLive",
    method: "GET",
    path: "/api/v1/live",
    summary: "Live counter: visitors in the last 5 and 30 minutes, as bands of width k (fewer than k below it)",
    tag: "Reports",
    auth: "key",
    scope: "read:reports",
    query: z.strictObject({
      site: siteId.meta({ param: { description: "Site id; it must be on the key's allowlist." } }),
    }),
    site: { from: "query", name: "site" },
    responses: {
      200: {
        description: "Both windows' bands, fixed for the minute: poll at `next_update`, not sooner.",
        schema: liveResponse,
      },
      404: { description: "No such site (`field`: `site`)." },
    },
    async handle(context) {
      const reading = await readLive(context.db.$reader, context.query.site, kAnonymity(context.env.WREN_K_ANONYMITY));
      return context.reply(200, reading);
    },
  }),
];
