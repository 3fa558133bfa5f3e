/**
 * The `imported` field's shape (coverage.ts ImportedMeta), for the report response schemas
 * (response-schemas.ts): the OpenAPI document and the contract tests read it from there.
 */
import { z } from "zod";
import { IMPORT_SOURCES } from "../../domain/imports/model";
import { IMPORTED_EXCLUSIONS } from "./rule";

/** imported/coverage.ts ImportedMeta: the period's imported days, and whether the answer includes them. */
export const importedSchema = z
  .object({
    days: z
      .number()
      .int()
      .meta({
        description: "Imported days in the period (days with collected data too are not counted: they read as collected).",
      }),
    from: z.string().meta({ description: "The first imported day of the period.", example: "2025-01-01" }),
    to: z.string().meta({ description: "The last imported day of the period.", example: "2025-02-11" }),
    sources: z.array(z.enum(IMPORT_SOURCES)).meta({ description: "The tools the imported days came from." }),
    included: z
      .boolean()
      .meta({
        description: "Whether the figures include the imported days (through the same k-filter, as sums of shown day cells).",
      }),
    reason: z.enum(IMPORTED_EXCLUSIONS).optional().meta({
      description:
        "When they are left out: `filters` (a filter is applied), `goal` (a breakdown with a goal), `interval` (hourly points, today's hours), `report` (a report imported data does not feed: conversions, funnels, vitals, properties).",
    }),
    overlap_days: z.number().int().optional().meta({
      description: "Imported days of the period that also have collected data: those days read as collected only.",
    }),
    collected_only: z.array(z.string()).optional().meta({
      description:
        "Figures of the answer that cover collected data only (the aggregate's visit duration: exports give no visit's duration).",
    }),
  })
  .meta({
    id: "ImportedDays",
    description:
      "Present when the period holds days imported from another tool (docs/reports.md, Imported days): how many, from which tools, and whether this answer's figures include them.",
  });
