/**
 * Imports of another tool's export (docs/api.md "Imports"): a site's admins upload the file as
 * the body (`write:sites` on the site), list what was imported, and remove an import with the
 * days it wrote. The body is read only after every check passed, under WREN_IMPORT_MAX_MB, and
 * read whole by the format's reader before anything is written (domain/imports/run.ts): a
 * malformed file writes nothing. The same file again writes nothing either (200, unchanged).
 */
import { z } from "zod";
import { auditActor, recordAudit } from "../../domain/audit";
import { IMPORT_SOURCES, type ImportSource } from "../../domain/imports/model";
import type { ImportSummary } from "../../domain/imports/run";
import { importFile, removeSiteImport, siteImports } from "../../domain/imports/site-imports";
import { requireSite } from "../../domain/sites";
import { DRAIN_LIMIT, readBoundedBytes } from "../../lib/body";
import { now } from "../../lib/clock";
import { importId, siteId } from "../../lib/ids";
import { importMaxBytes } from "../../lib/import-limit";
import { HttpProblem } from "../../lib/problem";
import { siteParams } from "../params";
import { route } from "../registry";

/** What an export may be sent as; browsers also call a zip `application/x-zip-compressed`. */
export const IMPORT_MEDIA_TYPES = [
  "application/zip",
  "application/x-zip-compressed",
  "text/csv",
  "application/octet-stream",
] as const;

const timestamp = z.string().meta({ format: "date-time", example: "2026-11-27T12:00:00.000Z" });
const day = z.string().meta({ format: "date", example: "2025-03-01" });

const refusedRow = z.object({
  file: z.string().meta({ description: "The file of the export (inside Plausible's zip: the CSV's name)." }),
  line: z.number().int().meta({ description: "1-based line of that file; the header is line 1." }),
  reason: z.string(),
});

const importResource = z
  .object({
    id: z.string().meta({ example: "imp_Vb1xQ9kLm2Zp4TcA" }),
    source: z.enum(IMPORT_SOURCES),
    file_name: z.string(),
    status: z.enum(["running", "done"]).meta({
      description: "`running`: interrupted before its last day was written; the same file again resumes it.",
    }),
    rows_read: z.number().int(),
    rows_refused: z.number().int(),
    days_imported: z.number().int(),
    first_day: day.nullable().meta({ description: "The first local day imported (null: none was)." }),
    last_day: day.nullable(),
    refusals: z.object({
      by_reason: z.record(z.string(), z.number().int()).meta({ description: "Rows left out, by reason." }),
      first: z.array(refusedRow).meta({ description: "The first few rows left out of each reason, with file and line." }),
    }),
    created_at: timestamp,
    finished_at: timestamp.nullable(),
  })
  .meta({ id: "Import" });

const importAnswer = z
  .object({
    import: importResource,
    unchanged: z.boolean().meta({ description: "true: this very file was imported before, and nothing was written." }),
  })
  .meta({ id: "ImportResult" });

const uploadQuery = z.strictObject({
  // Checked by the handler: an unknown tool is a 422 naming `from`, as a value no format reads.
  from: z
    .string()
    .max(32)
    .meta({ param: { description: `The tool the export comes from: ${IMPORT_SOURCES.join(", ")}.` }, example: "plausible" }),
  name: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^/\\]+$/, "must be a file name without a folder")
    .refine((name) => ![...name].some((c) => c < " "), "must be a file name without control characters")
    .optional()
    .meta({ param: { description: "The file's name, as refusals name it (default: export.zip or export.csv)." } }),
});

const importParams = z.strictObject({
  id: siteId.meta({ param: { description: "Site id" } }),
  import_id: importId.meta({ param: { description: "Import id" } }),
});

const iso = (ms: number) => new Date(ms).toISOString();

function toImport(summary: ImportSummary): z.infer<typeof importResource> {
  return {
    id: summary.id,
    source: summary.source,
    file_name: summary.fileName,
    status: summary.status,
    rows_read: summary.rowsRead,
    rows_refused: summary.rowsRefused,
    days_imported: summary.daysImported,
    first_day: summary.firstDay,
    last_day: summary.lastDay,
    refusals: { by_reason: summary.refusals.counts, first: summary.refusals.examples },
    created_at: iso(summary.createdAt),
    finished_at: summary.finishedAt === null ? null : iso(summary.finishedAt),
  };
}

function sourceOf(from: string): ImportSource {
  if ((IMPORT_SOURCES as readonly string[]).includes(from)) return from as ImportSource;
  throw new HttpProblem(422, `from: must be one of ${IMPORT_SOURCES.join(", ")}`, { field: "from" });
}

/** The body's bytes, if its media type is an export's: 415 otherwise, 413 past the bound (counted as it streams). */
async function readExport(request: Request, maxBytes: number): Promise<Uint8Array> {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!(IMPORT_MEDIA_TYPES as readonly string[]).includes(type)) {
    throw new HttpProblem(415, `Send the export as the body, as one of ${IMPORT_MEDIA_TYPES.join(", ")}.`, {
      field: "content-type",
    });
  }
  // A streamed body past the bound is read (and dropped) up to twice the bound, so a sender a
  // little over it gets the 413 rather than a reset; the front door refused any larger declared length.
  const bytes = await readBoundedBytes(request, maxBytes, Math.max(DRAIN_LIMIT, 2 * maxBytes));
  if (bytes.length === 0) throw new HttpProblem(422, "body: send the export's file as the body.", { field: "body" });
  return bytes;
}

export const importRoutes = [
  route({
    operationId: "createImport",
    method: "POST",
    path: "/api/v1/sites/:id/imports",
    summary: "Import another tool's export (Plausible's zip, Umami's or GoatCounter's CSV) into a site's past days",
    tag: "Imports",
    auth: "key",
    scope: "write:sites",
    params: siteParams,
    query: uploadQuery,
    rawBody: {
      mediaTypes: IMPORT_MEDIA_TYPES,
      description: "The export file as it was downloaded, at most WREN_IMPORT_MAX_MB megabytes (default 25).",
    },
    site: { from: "params", name: "id" },
    responses: {
      201: { description: "Imported (or resumed and finished): the summary.", schema: importAnswer },
      200: { description: "This very file was imported before: its summary, and nothing was written.", schema: importAnswer },
      404: { description: "No such site." },
    },
    async handle({ request, env, db, params, query, caller, reply }) {
      const source = sourceOf(query.from);
      await requireSite(db, params.id);
      const bytes = await readExport(request, importMaxBytes(env.WREN_IMPORT_MAX_MB));
      const fileName = query.name ?? (source === "plausible" ? "export.zip" : "export.csv");
      const summary = await importFile(db, {
        siteId: params.id,
        source,
        fileName,
        bytes,
        createdBy: caller.principal.id,
        now,
      });
      if (!summary.unchanged) {
        await recordAudit(db, {
          actor: auditActor(caller),
          action: "import.create",
          siteId: params.id,
          target: summary.id,
          // What was imported, never the file's content.
          detail: { source: summary.source, file_name: summary.fileName, days_imported: summary.daysImported },
        });
      }
      return reply(summary.unchanged ? 200 : 201, { import: toImport(summary), unchanged: summary.unchanged });
    },
  }),
  route({
    operationId: "listImports",
    method: "GET",
    path: "/api/v1/sites/:id/imports",
    summary: "A site's imports, newest first",
    tag: "Imports",
    auth: "key",
    // The same scope as importing: a summary's row counts are the export's exact counts (rows
    // read, bots and custom events left out), never k-filtered, so they are for those who hold
    // the file anyway. Readers learn which days are imported from the reports' `imported` field.
    scope: "write:sites",
    params: siteParams,
    site: { from: "params", name: "id" },
    responses: {
      200: { description: "The imports.", schema: z.object({ imports: z.array(importResource) }) },
      404: { description: "No such site." },
    },
    async handle({ db, params, reply }) {
      await requireSite(db, params.id);
      return reply(200, { imports: (await siteImports(db, params.id)).map(toImport) });
    },
  }),
  route({
    operationId: "deleteImport",
    method: "DELETE",
    path: "/api/v1/sites/:id/imports/:import_id",
    summary: "Remove an import and the days it wrote",
    tag: "Imports",
    auth: "key",
    scope: "write:sites",
    params: importParams,
    site: { from: "params", name: "id" },
    responses: { 204: { description: "Removed." }, 404: { description: "No such import on this site." } },
    async handle({ db, params, caller, reply }) {
      await removeSiteImport(db, params.id, params.import_id);
      await recordAudit(db, { actor: auditActor(caller), action: "import.remove", siteId: params.id, target: params.import_id });
      return reply(204);
    },
  }),
];
