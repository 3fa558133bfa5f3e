/**
 * Scheduled digests of a site (domain/digests): list and preview with `read:reports`, make and
 * delete with `write:alerts` (editors). A digest goes to email addresses (when mail is
 * configured: else 409) and/or one alert destination of the same site. The alerts worker's
 * scheduler composes and queues each period once (worker/alerts/digests.ts); the preview
 * renders the latest complete period now and sends nothing.
 */
import { z } from "zod";
import {
  createDigest,
  DIGEST_FREQUENCIES,
  deleteDigest,
  latestPeriodEnd,
  MAX_RECIPIENTS,
  periodEnding,
  previousPeriod,
  renderDigest,
  requireDigest,
  siteDigests,
  type Digest,
} from "../../domain/digests";
import { emailAddress } from "../../domain/mail";
import { auditActor, recordAudit } from "../../domain/audit";
import { maskedUrl } from "../../domain/alert-rules";
import { HttpProblem } from "../../lib/problem";
import { composeDigest, digestSite } from "../../reports/digest";
import { figureSchema } from "../../reports/response-schemas";
import { kAnonymity } from "../../reports/privacy";
import { now } from "../../lib/clock";
import { siteDigestParams, siteParams } from "../params";
import { route } from "../registry";

const createBody = z
  .strictObject({
    frequency: z.enum(DIGEST_FREQUENCIES).meta({
      description:
        "`weekly`: Monday–Sunday, sent once Sunday is published (Monday 00:00 in the site's zone). `monthly`: the previous month, sent on the 1st.",
    }),
    email_to: z
      .array(emailAddress)
      .min(1)
      .max(MAX_RECIPIENTS)
      .optional()
      .meta({
        description: `Up to ${MAX_RECIPIENTS} addresses, one message each. Needs mail configured (WREN_SMTP_URL), else 409.`,
      }),
    destination_id: z
      .string()
      .regex(/^dst_[A-Za-z0-9_-]{1,40}$/, "must be an alert destination id (dst_…)")
      .optional()
      .meta({
        description:
          "An alert destination (`dst_…`) of a rule of this site: the digest goes there in its format (signed Standard Webhooks, or Slack).",
      }),
  })
  .meta({ id: "DigestCreate" });

const digestResource = z
  .object({
    id: z.string(),
    site: z.string(),
    frequency: z.enum(DIGEST_FREQUENCIES),
    email_to: z.array(z.string()),
    destination: z
      .object({
        id: z.string(),
        url: z.string().meta({ description: "Masked, as in alert rules." }),
        format: z.enum(["standard", "slack"]),
      })
      .nullable()
      .meta({ description: "The alert destination, or null (none, or its rule was deleted)." }),
    last_period_end: z
      .string()
      .nullable()
      .meta({ format: "date", description: "The last local day of the last period queued; the next period follows it." }),
    created_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "Digest" });

function toDigest(d: Digest): z.infer<typeof digestResource> {
  return {
    id: d.id,
    site: d.siteId,
    frequency: d.frequency,
    email_to: d.emailTo,
    destination: d.destination ? { id: d.destination.id, url: maskedUrl(d.destination.url), format: d.destination.format } : null,
    last_period_end: d.lastPeriodEnd,
    created_at: new Date(d.createdAt).toISOString(),
  };
}

const compared = z.object({
  current: figureSchema,
  previous: figureSchema,
  delta: figureSchema.nullable().meta({ description: "current − previous, only when both are shown." }),
});
const digestRow = z.object({
  label: z.string().nullable().meta({ description: "Null when the row is hidden: a hidden row has no label." }),
  hidden: z.boolean(),
  direct: z.boolean().optional(),
  visitors: compared,
});
const previewResponse = z
  .object({
    type: z.enum(["digest.weekly", "digest.monthly"]),
    timestamp: z.string().meta({ format: "date-time" }),
    data: z.object({
      site: z.object({ id: z.string(), name: z.string(), timezone: z.string() }),
      k: z.number().int(),
      frequency: z.enum(DIGEST_FREQUENCIES),
      period: z.object({ from: z.string(), to: z.string() }),
      previous: z.object({ from: z.string(), to: z.string() }),
      visitors: compared,
      pageviews: compared,
      pages: z.array(digestRow),
      sources: z.array(digestRow),
      goals: z.array(z.object({ id: z.string(), name: z.string(), conversions: compared })),
      links: z.object({ dashboard: z.string() }),
    }),
    subject: z.string(),
    text: z.string(),
    html: z.string(),
  })
  .meta({
    id: "DigestPreview",
    description:
      "The Standard Webhooks body a destination gets (`type`, `timestamp`, `data`), with the email's subject, text and HTML.",
  });

const notFound = { description: "No such site, or no such digest of the site (`field`: `digestId`)." };

export const digestRoutes = [
  route({
    operationId: "listDigests",
    method: "GET",
    path: "/api/v1/sites/:id/digests",
    summary: "A site's scheduled digests",
    tag: "Digests",
    auth: "key",
    scope: "read:reports",
    orScope: "write:alerts",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: {
      200: { description: "The digests, oldest first.", schema: z.object({ digests: z.array(digestResource) }) },
      404: notFound,
    },
    async handle({ db, params, reply }) {
      return reply(200, { digests: (await siteDigests(db, params.id)).map(toDigest) });
    },
  }),
  route({
    operationId: "createDigest",
    method: "POST",
    path: "/api/v1/sites/:id/digests",
    summary: "Schedule a weekly or monthly digest to email addresses and/or an alert destination",
    tag: "Digests",
    auth: "key",
    scope: "write:alerts",
    params: siteParams,
    body: createBody,
    site: { from: "params", name: "id" },
    responses: {
      201: { description: "Scheduled; the first digest covers the next period to end.", schema: digestResource },
      404: notFound,
      409: {
        description:
          "Email addresses while mail is not configured (`field`: `email_to`), or the site has the most digests it may.",
      },
      422: {
        description: "Neither email_to nor destination_id, or a destination that is not one of this site's (`field` names it).",
      },
    },
    async handle({ db, env, caller, params, body, reply }) {
      const digest = await createDigest(db, params.id, body, env, caller.principal.id, now());
      // How many addresses, not which: the audit log is read by every admin of the site.
      await recordAudit(db, {
        actor: auditActor(caller),
        action: "digest.create",
        siteId: params.id,
        target: digest.id,
        detail: { frequency: digest.frequency, recipients: digest.emailTo.length, destination: digest.destinationId },
      });
      return reply(201, toDigest(digest));
    },
  }),
  route({
    operationId: "deleteDigest",
    method: "DELETE",
    path: "/api/v1/sites/:id/digests/:digestId",
    summary: "Delete a scheduled digest (what is already queued is still sent)",
    tag: "Digests",
    auth: "key",
    scope: "write:alerts",
    params: siteDigestParams,
    site: { from: "params", name: "id" },
    responses: { 204: { description: "Deleted." }, 404: notFound },
    async handle({ db, caller, params, reply }) {
      const digest = await deleteDigest(db, params.id, params.digestId);
      await recordAudit(db, {
        actor: auditActor(caller),
        action: "digest.delete",
        siteId: params.id,
        target: digest.id,
        detail: { frequency: digest.frequency },
      });
      return reply(204);
    },
  }),
  route({
    operationId: "getDigestPreview",
    method: "POST",
    path: "/api/v1/sites/:id/digests/:digestId/preview",
    summary: "Render the digest of the latest complete period now, as it would be sent; sends nothing",
    tag: "Digests",
    auth: "key",
    scope: "read:reports",
    orScope: "write:alerts",
    params: siteDigestParams,
    site: { from: "params", name: "id" },
    responses: { 200: { description: "The rendered digest.", schema: previewResponse }, 404: notFound },
    async handle({ db, env, params, baseUrl, reply }) {
      const digest = await requireDigest(db, params.id, params.digestId);
      const site = await digestSite(db.$reader, params.id, kAnonymity(env.WREN_K_ANONYMITY));
      if (!site)
        throw new HttpProblem(503, "No figures are published yet: the publisher's first run comes within seconds of start-up.", {
          headers: { "retry-after": "10" },
        });
      const period = periodEnding(digest.frequency, latestPeriodEnd(digest.frequency, site.publishedThrough));
      const figures = await composeDigest(db.$reader, site, period, previousPeriod(digest.frequency, period));
      const rendered = renderDigest(figures, digest.frequency, baseUrl.replace(/\/+$/, ""), now());
      return reply(200, { ...rendered.payload, subject: rendered.subject, text: rendered.text, html: rendered.html });
    },
  }),
];
