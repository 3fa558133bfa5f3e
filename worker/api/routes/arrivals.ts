/**
 * The first day: what has arrived for a site since its first beacon, in steps of k sessions
 * as a band (worker/reports/arrivals.ts), and when its next figures are published. Scope
 * read:reports, like the reports whose arrival it announces.
 */
import { z } from "zod";
import { siteArrivals } from "../../reports/arrivals";
import { kAnonymity } from "../../reports/privacy";
import { siteParams } from "../params";
import { route } from "../registry";

const instant = (description: string) => z.string().meta({ format: "date-time", description });

const arrivalsResource = z
  .object({
    site: z.string(),
    timezone: z
      .string()
      .meta({ description: "The site's time zone, in which hours and days are cut.", example: "Europe/Berlin" }),
    k: z.number().int().meta({ description: "The k of the privacy filter: the band's width, and the sessions a step needs." }),
    status: z.enum(["waiting", "first_day", "ended"]).meta({
      description:
        "`waiting`: no beacon has arrived. `first_day`: within 24 hours of the first beacon. `ended`: the reports have the site; no count is given.",
    }),
    first_beacon: instant("When the first beacon arrived (as the verification says); null before.").nullable(),
    window_end: instant("The first beacon plus 24 hours: arrivals are counted until then.").nullable(),
    counted_through: instant(
      "The end of the local hour by which the last group of at least k sessions had started since the previous one: `beacons` counts what arrived before it. Null until the first such group.",
    ).nullable(),
    beacons: z
      .object({
        low: z.number().int().nullable(),
        high: z.number().int().nullable(),
        qualifier: z.enum(["exact", "estimated", "suppressed"]),
      })
      .nullable()
      .meta({
        description:
          "Events stored since the first beacon (pageviews, custom events, engagement), up to `counted_through`, as a band of width k over the cell-key-perturbed count: `estimated`. `suppressed` (low and high null) until k sessions have come; `exact` 0–0 before any beacon; null once `status` is `ended`.",
      }),
    next_figures: z.object({
      hour: instant("When the running local hour's figures are published: its end plus the publisher's grace."),
      day: instant("When today's whole-day figures are published: the next local midnight plus the grace."),
    }),
  })
  .meta({ id: "SiteArrivals" });

export const arrivalRoutes = [
  route({
    operationId: "getSiteArrivals",
    method: "GET",
    path: "/api/v1/sites/:id/arrivals",
    summary:
      "What has arrived since the site's first beacon (a band, in steps of k sessions) and when its next figures are published",
    tag: "Sites",
    auth: "key",
    scope: "read:reports",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: {
      200: { description: "The site's first day.", schema: arrivalsResource },
      404: { description: "No such site." },
    },
    async handle({ db, env, params, reply }) {
      return reply(200, await siteArrivals(db.$reader, params.id, kAnonymity(env.WREN_K_ANONYMITY)));
    },
  }),
];
