/**
 * The document's `webhooks`: what Wren sends rather than answers. An alert rule's notification,
 * POSTed to each of its destinations (worker/alerts/send.ts): a `standard` destination gets the
 * AlertNotification signed per Standard Webhooks; a `slack` destination gets a Slack message, unsigned.
 */
import type { ZodOpenApiPathsObject } from "zod-openapi";
import { alertNotificationResource } from "../resources";

export const WEBHOOKS: ZodOpenApiPathsObject = {
  alertNotification: {
    post: {
      summary: "An alert rule's notification: alert.firing, alert.resolved or alert.test",
      tags: ["Alerts"],
      // Signed with the destination's secret in the headers below: no scheme OpenAPI can describe.
      security: [],
      description:
        "POSTed to each destination of an alert rule when it fires (`alert.firing`), resolves (`alert.resolved`) or is tested " +
        "(`alert.test`, POST /api/v1/alerts/{id}/test). A `standard` destination gets this body, signed per Standard Webhooks " +
        "(https://www.standardwebhooks.com) with the destination's secret (`whsec_…`, shown once when the destination was made): " +
        "verify `webhook-signature` over `webhook-id.webhook-timestamp.body` before trusting it. A `slack` destination gets " +
        '`{"text": "…"}`, a Slack incoming-webhook message saying the same in words, with none of the three headers (unsigned). ' +
        "Each attempt has 10 s; redirects are not followed; at most 4 KiB of the answer is read.",
      parameters: [
        {
          name: "webhook-id",
          in: "header",
          required: false,
          description:
            "The message's id (`msg_…`), the same on every attempt: a receiver that sees it twice has seen a retry. Absent for `slack` destinations.",
          schema: { type: "string" },
        },
        {
          name: "webhook-timestamp",
          in: "header",
          required: false,
          description: "Unix seconds when this attempt was signed; reject one far from now. Absent for `slack` destinations.",
          schema: { type: "string" },
        },
        {
          name: "webhook-signature",
          in: "header",
          required: false,
          description:
            "`v1,` + base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body` with the destination's secret. Absent for `slack` destinations.",
          schema: { type: "string" },
        },
      ],
      requestBody: { required: true, content: { "application/json": { schema: alertNotificationResource } } },
      responses: {
        "2XX": { description: "Delivered: the notification is not sent again." },
        default: {
          description:
            "Anything else (a 3xx, 4xx or 5xx, a timeout, no answer): not delivered. Retried with the same webhook-id, " +
            "the wait doubling from WREN_WEBHOOK_RETRY_SECONDS (default 30 s) up to 12 h; after 13 attempts it is marked failed in the rule's history.",
        },
      },
    },
  },
};
