/**
 * `POST /api/v1/events`: server-side conversions with an API key. The key, scope and site are
 * checked here; the events then go to the collector's `/s2s` with the site's token, so
 * validation, the 24-hour window and idempotency are the same code as `/s2s`. (An HTTP hop,
 * not RPC: `wren start` runs the collector and the api as two workerd processes.)
 */
import { z } from "zod";
import { siteId } from "../../lib/ids";
import { requireSite } from "../../domain/sites";
import { s2sTokenFor } from "../../domain/s2s-token";
import { HttpProblem } from "../../lib/problem";
import { SERVICE_TOKEN_HEADER } from "../../lib/tokens";
import { requireSiteAccess } from "../auth";
import { readJson } from "../body";
import { route } from "../registry";
import { acceptedEventsResource } from "../resources";

export const EVENTS_BODY_LIMIT = 256 * 1024;

const conversion = z.object({
  goal_id: z.string().meta({ description: "An existing goal of the site." }),
  session: z.string().optional().meta({ description: "The tracker's session id (wren.session()), within 24 h." }),
  value: z.number().optional().meta({ description: "Monetary or numeric value." }),
  id: z.string().optional().meta({ description: "Idempotency id: the same id counts once." }),
  timestamp: z.string().optional().meta({ format: "date-time", description: "When it happened; within the last 24 h." }),
});

/** Documents the body; the collector validates it in full. */
const eventsBody = z.union([
  conversion.extend({ site: siteId }),
  z.object({ site: siteId, events: z.array(conversion).min(1).max(500) }),
]);

export const eventRoutes = [
  route({
    operationId: "recordEvents",
    method: "POST",
    path: "/api/v1/events",
    summary: "Record server-side conversions (one, or {events: [...]} up to 500)",
    tag: "Events",
    auth: "key",
    scope: "write:events",
    documentedBody: eventsBody,
    responses: {
      202: { description: "Stored (each event's outcome in `events`).", schema: acceptedEventsResource },
      404: { description: "No such site (`field`: `site`)." },
      413: { description: "The body is too large." },
      415: { description: "The body is not application/json." },
      422: { description: "A field is invalid (unknown goal, outside the 24-hour window, …); `field` names it." },
    },
    async handle({ request, env, db, caller, forward }) {
      const parsed = await readJson(request, EVENTS_BODY_LIMIT);
      const site = (parsed as { site?: unknown } | null)?.site;
      if (typeof site !== "string" || !siteId.safeParse(site).success) {
        throw new HttpProblem(422, "site: must be a site id (site_…)", { field: "site" });
      }
      requireSiteAccess(caller, site);
      const token = await s2sTokenFor(caller, env.WREN_SECRET, await requireSite(db, site, "site"));
      if (!token) throw new HttpProblem(403, "This key lacks the write:events scope.", { field: "authorization" });
      const { site: _site, ...conversions } = parsed as Record<string, unknown>;
      const headers = new Headers({ "content-type": "application/json", [SERVICE_TOKEN_HEADER]: token });
      const origin = request.headers.get("origin");
      if (origin) headers.set("origin", origin);
      return forward(
        await env.COLLECTOR.fetch(new URL("/s2s", request.url), { method: "POST", headers, body: JSON.stringify(conversions) }),
      );
    },
  }),
];
