/**
 * Deployment markers (worker/domain/deployments.ts): record one (idempotent per external_id),
 * list a site's newest first, read and delete one; make or rotate a site's deployment webhook;
 * and the webhook itself, `POST /hooks/deployments/{site}`, signed with the site's secret (GitHub
 * `deployment_status` or Standard Webhooks) instead of an API key. Markers are the operator's own
 * data: exact, at once, with their smoke-test conversions.
 */
import { z } from "zod";
import { gitHubDelivery, recordHookDelivery, rotateDeploymentHook, standardDelivery } from "../../domain/deployment-hook";
import {
  decodeDeploymentCursor,
  deleteDeployment,
  deploymentInput,
  encodeDeploymentCursor,
  recordDeployment,
  requireDeployment,
  siteDeployments,
} from "../../domain/deployments";
import { deploymentCreateBody } from "../../domain/schemas";
import { decodeUtf8, parseJson } from "../../lib/body";
import { siteId } from "../../lib/ids";
import { HOOK_BODY_LIMIT, HOOK_SIGNING } from "../hook-auth";
import { deploymentParams, listLimit, siteParams } from "../params";
import { route, signedRoute } from "../registry";
import { deploymentHookResource, deploymentResource, ignoredDeliveryResource } from "../resources";

const bound = (description: string) =>
  z
    .union([z.iso.date(), z.iso.datetime({ offset: true })])
    .optional()
    .meta({ param: { description } });

/** Cursor: the last listed marker's deployed_at (ms) and id ("1795444125735.dep_…"). */
const cursor = z
  .string()
  .refine((value) => decodeDeploymentCursor(value) !== null, "must be a next_cursor value from a previous page")
  .transform((value) => decodeDeploymentCursor(value)!);

export const deploymentRoutes = [
  route({
    operationId: "createDeployment",
    method: "POST",
    path: "/api/v1/deployments",
    summary: "Record a deployment marker (the same external_id again returns the same marker)",
    tag: "Deployments",
    auth: "key",
    scope: "write:deployments",
    body: deploymentCreateBody,
    site: { from: "body", name: "site" },
    responses: {
      201: { description: "Recorded.", schema: deploymentResource },
      200: {
        description: "A marker with this external_id exists on the site: that marker, unchanged.",
        schema: deploymentResource,
      },
      404: { description: "No such site (`field`: `site`)." },
    },
    async handle({ db, body, reply }) {
      const { marker, created } = await recordDeployment(db, body.site, deploymentInput(body, "api"));
      return reply(created ? 201 : 200, marker);
    },
  }),
  route({
    operationId: "listDeployments",
    method: "GET",
    path: "/api/v1/deployments",
    summary: "A site's deployment markers, newest first, each with its smoke-test conversions",
    tag: "Deployments",
    auth: "key",
    scope: "read:reports",
    query: z.strictObject({
      site: siteId.meta({ param: { description: "Site id" } }),
      from: bound("Earliest deployed_at: a date (the whole day in the site's time zone) or a date-time with offset."),
      to: bound("Latest deployed_at: a date (the whole day in the site's time zone) or a date-time with offset."),
      limit: listLimit,
      cursor: cursor.optional().meta({ param: { description: "next_cursor from the previous page." } }),
    }),
    site: { from: "query", name: "site" },
    responses: {
      200: {
        description: "A page of markers.",
        schema: z.object({
          deployments: z.array(deploymentResource),
          next_cursor: z.string().nullable().meta({ description: "Pass as cursor for the next page; null on the last page." }),
        }),
      },
      404: { description: "No such site (`field`: `site`)." },
    },
    async handle({ db, query, reply }) {
      const page = await siteDeployments(db, query.site, {
        from: query.from,
        to: query.to,
        limit: query.limit,
        after: query.cursor,
      });
      return reply(200, {
        deployments: page.deployments,
        next_cursor: page.next === null ? null : encodeDeploymentCursor(page.next),
      });
    },
  }),
  route({
    operationId: "getDeployment",
    method: "GET",
    path: "/api/v1/deployments/:id",
    summary: "One deployment marker with its smoke-test conversions",
    tag: "Deployments",
    auth: "key",
    scope: "read:reports",
    params: deploymentParams,
    responses: {
      200: { description: "The marker.", schema: deploymentResource },
      404: { description: "No such marker on a site this key may act on." },
    },
    async handle({ db, caller, params, reply }) {
      return reply(200, await requireDeployment(db, params.id, caller.mayActOn));
    },
  }),
  route({
    operationId: "deleteDeployment",
    method: "DELETE",
    path: "/api/v1/deployments/:id",
    summary: "Delete a deployment marker",
    tag: "Deployments",
    auth: "key",
    scope: "write:deployments",
    params: deploymentParams,
    responses: { 204: { description: "Deleted." }, 404: { description: "No such marker on a site this key may act on." } },
    async handle({ db, caller, params, reply }) {
      await deleteDeployment(db, params.id, caller.mayActOn);
      return reply(204);
    },
  }),
  route({
    operationId: "createDeploymentHook",
    method: "POST",
    path: "/api/v1/sites/:id/deployment-hook",
    summary:
      "Make the site's deployment webhook, or rotate its secret: returns the URL and the secret, shown once (the previous secret stops at once)",
    tag: "Deployments",
    auth: "key",
    scope: "write:deployments",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: {
      200: { description: "The webhook's URL and its new secret.", schema: deploymentHookResource },
      404: { description: "No such site." },
    },
    async handle({ db, env, params, baseUrl, reply }) {
      return reply(200, await rotateDeploymentHook(db, env.WREN_SECRET, params.id, baseUrl));
    },
  }),
  signedRoute({
    operationId: "recordDeploymentWebhook",
    method: "POST",
    path: "/hooks/deployments/:site",
    summary:
      "The inbound deployment webhook: a GitHub deployment_status (success) or a Standard Webhooks delivery makes a marker",
    tag: "Deployments",
    auth: "webhook-signature",
    siteParam: "site",
    signedWith: HOOK_SIGNING,
    bodyLimit: HOOK_BODY_LIMIT,
    params: z.strictObject({ site: siteId.meta({ param: { description: "Site id" } }) }),
    documentedBody: z.union([
      deploymentCreateBody
        .omit({ site: true })
        .meta({ description: "Standard Webhooks: the body of POST /api/v1/deployments without `site`." }),
      z
        .object({})
        .passthrough()
        .meta({ description: "GitHub: a deployment_status event (any other event is accepted and ignored)." }),
    ]),
    responses: {
      201: { description: "A marker was recorded.", schema: deploymentResource },
      200: {
        description:
          "The delivery's marker exists (a replayed webhook-id, or the same external_id or GitHub deployment): that marker, unchanged.",
        schema: deploymentResource,
      },
      202: {
        description:
          "Accepted and ignored, nothing recorded: another GitHub event (ping), a status other than success, or a delivery that made a marker before which has since been deleted (a replay).",
        schema: ignoredDeliveryResource,
      },
      401: {
        description:
          "The signature does not verify (one answer for an unknown site, a site without a hook, a wrong or rotated secret), a header is missing, or webhook-timestamp is more than 5 minutes off.",
      },
      413: { description: "The body is larger than 1 MiB." },
    },
    async handle({ db, delivery, reply }) {
      const payload = parseJson(decodeUtf8(delivery.body));
      const outcome =
        delivery.scheme === "github"
          ? gitHubDelivery(delivery.gitHubEvent, payload)
          : standardDelivery(delivery.webhookId!, payload);
      if ("ignore" in outcome) return reply(202, { recorded: false, reason: outcome.ignore });
      const recorded = await recordHookDelivery(db, delivery.siteId, outcome.record);
      if ("ignore" in recorded) return reply(202, { recorded: false, reason: recorded.ignore });
      return reply(recorded.created ? 201 : 200, recorded.marker);
    },
  }),
];
