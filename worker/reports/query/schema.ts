/**
 * `POST /api/v1/query`: one question in the shape of Plausible's Stats API v2 (`site_id`,
 * `metrics`, `dimensions`, `filters`, `date_range`, `order_by`, `pagination`), so scripts written
 * against it move with few edits (docs/api.md "Query"). Every answer comes from the same filter
 * engine and rule as the reports (reports/explore). Differences, and why:
 * - each metric value has its qualifier beside it (`qualifiers`, in the order of `metrics`), and
 *   rows hidden below k are one `other` row: Wren publishes no figure without them;
 * - a filter has one value (`["is", "visit:country", ["DE"]]`): OR-ed values are a union of
 *   cells the engine does not cut; up to three filters, AND-ed, as everywhere;
 * - dates: `day`, `7d`, `30d` or `[from, to]` (local dates), within the periods reports take;
 * - custom properties are `event:props:NAME` (Plausible's spelling), as a dimension or a filter:
 *   the engine's `prop:NAME` (a session-day has each value any of its events carried).
 */
import { importedSchema } from "../imported/schema";
import { z } from "zod";
import { siteId } from "../../lib/ids";
import { DIMENSIONS } from "../dimensions";
import { parseFilter, MAX_FILTERS, type Filter } from "../explore/filters";
import type { CellKey, PropKey } from "../explore/cells";
import { PROP_NAME_PATTERN } from "../../lib/beacon-limits";

export const QUERY_METRICS = [
  "visitors",
  "visits",
  "pageviews",
  "views_per_visit",
  "bounce_rate",
  "visit_duration",
  "events",
  "conversion_rate",
  "total_revenue",
  "average_revenue",
] as const;
export type QueryMetric = (typeof QUERY_METRICS)[number];

/** Plausible's dimension names and the engine's keys they are. */
const DIMENSION_KEYS: Record<string, CellKey> = {
  ...Object.fromEntries(DIMENSIONS.map((d) => [`visit:${d}`, d])),
  "event:page": "page",
  "event:goal": "goal",
  "time:day": "day",
  "time:hour": "hour",
};
export const QUERY_DIMENSIONS = Object.keys(DIMENSION_KEYS);
const PROPS_PREFIX = "event:props:";

/** `event:props:NAME` as the engine's key; undefined when it is not one. */
function propKeyOf(dimension: string): PropKey | undefined {
  if (!dimension.startsWith(PROPS_PREFIX)) return undefined;
  const name = dimension.slice(PROPS_PREFIX.length);
  return PROP_NAME_PATTERN.test(name) ? `prop:${name}` : undefined;
}

const FILTER_OPERATORS = { is: false, is_not: true } as const;

/** A filter of the body as the engine's Filter, or why not. */
function bodyFilter(raw: unknown): Filter | string {
  if (!Array.isArray(raw) || raw.length !== 3)
    return 'must be [operator, dimension, [value]], e.g. ["is", "visit:country", ["DE"]]';
  const [op, dimension, values] = raw as unknown[];
  if (typeof op !== "string" || !(op in FILTER_OPERATORS))
    return `operator must be one of ${Object.keys(FILTER_OPERATORS).join(", ")}`;
  const prop = typeof dimension === "string" ? propKeyOf(dimension) : undefined;
  const key = typeof dimension === "string" ? (prop ?? DIMENSION_KEYS[dimension]) : undefined;
  if (!key || key === "day" || key === "hour")
    return `dimension must be one of ${QUERY_DIMENSIONS.filter((d) => !d.startsWith("time:")).join(", ")} or event:props:NAME`;
  if (!Array.isArray(values) || values.length !== 1 || typeof values[0] !== "string")
    return 'must name exactly one value, as a list: ["DE"]';
  // A property's value is exact, and its name may hold a `:`: made here, not parsed from text.
  if (prop)
    return values[0] === ""
      ? "must name a value"
      : { dimension: prop, negated: FILTER_OPERATORS[op as keyof typeof FILTER_OPERATORS], value: values[0] };
  const parsed = parseFilter(`${key}${FILTER_OPERATORS[op as keyof typeof FILTER_OPERATORS] ? "!" : ""}:${values[0]}`);
  return "error" in parsed ? parsed.error : parsed;
}

// Lists, not tuples: OpenAPI 3.0 has no tuple (Spectral's array-items); the length is checked instead.
const dateRange = z.union([z.enum(["day", "7d", "30d"]), z.array(z.iso.date()).length(2)]);

export const queryBody = z.strictObject({
  site_id: siteId.meta({ description: "The site's id (Wren's, not its domain)." }),
  metrics: z
    .array(z.enum(QUERY_METRICS))
    .min(1)
    .max(QUERY_METRICS.length)
    .refine((m) => new Set(m).size === m.length, "must not repeat a metric")
    .meta({ description: "What to compute, in the order of each row's `metrics`." }),
  date_range: dateRange.meta({
    description: "`day` (the last published day), `7d`, `30d`, or `[from, to]` local dates (inclusive).",
  }),
  dimensions: z
    .array(
      z.union([
        z.enum(QUERY_DIMENSIONS as [string, ...string[]]),
        z.string().regex(/^event:props:[A-Za-z0-9_.:-]{1,64}$/, "must be a dimension, or event:props:NAME"),
      ]),
    )
    .max(2)
    .default([])
    .refine((d) => new Set(d).size === d.length, "must not repeat a dimension")
    .refine((d) => !(d.includes("event:page") && d.includes("event:goal")), "event:page and event:goal cannot be crossed")
    .meta({ description: "Group by up to two dimensions; `event:props:NAME` groups by a custom property's values." }),
  filters: z
    .array(z.unknown())
    .max(MAX_FILTERS)
    .default([])
    .transform((raw, ctx) => {
      const out: Filter[] = [];
      raw.forEach((item, i) => {
        const parsed = bodyFilter(item);
        if (typeof parsed === "string") ctx.addIssue({ code: "custom", message: `filters[${i}]: ${parsed}` });
        else out.push(parsed);
      });
      return out;
    })
    .meta({ description: `Up to ${MAX_FILTERS} filters, AND-ed: \`["is" | "is_not", dimension, [value]]\`.` }),
  order_by: z
    .array(
      z
        .array(z.string().max(100))
        .length(2)
        .refine(([, direction]) => direction === "asc" || direction === "desc", 'each must be [name, "asc" | "desc"]')
        .transform(([name, direction]) => [name!, direction as "asc" | "desc"] as const),
    )
    .max(3)
    .optional()
    .meta({ description: '`[[metric or dimension, "asc" | "desc"]]`; default: the first metric, descending.' }),
  include: z
    .strictObject({
      comparisons: z
        .strictObject({ mode: z.enum(["previous_period", "year_over_year"]) })
        .optional()
        .meta({ description: "Each row beside the same group of the previous period (weekdays aligned) or a year earlier." }),
    })
    .optional(),
  pagination: z
    .strictObject({
      limit: z.number().int().min(1).max(10_000).default(10_000),
      offset: z.number().int().min(0).max(1_000_000).default(0),
    })
    .default({ limit: 10_000, offset: 0 }),
});

export type QueryBody = z.output<typeof queryBody>;

export function cellKeyOf(dimension: string): CellKey {
  return propKeyOf(dimension) ?? DIMENSION_KEYS[dimension]!;
}

const figureValue = z.number().nullable();
export const queryResponse = z.object({
  results: z.array(
    z.object({
      dimensions: z.array(z.union([z.string(), z.null()])).meta({
        description: "The row's values, in the order of `dimensions`; null for a session without one, and in the `other` row.",
      }),
      metrics: z.array(figureValue).meta({ description: "The values, in the order of `metrics`; null where suppressed." }),
      qualifiers: z.array(z.enum(["exact", "estimated", "suppressed"])).meta({ description: "Each value's qualifier." }),
      other: z.boolean().meta({ description: "The one row standing for every group hidden below k: no label, no figures." }),
      currency: z.string().nullable().optional().meta({
        description:
          "With `total_revenue` or `average_revenue`: the row's goal's currency (ISO 4217), null for a goal without one (its revenue metrics are null, suppressed).",
      }),
      comparison: z
        .object({
          metrics: z.array(figureValue),
          qualifiers: z.array(z.enum(["exact", "estimated", "suppressed"])),
          change: z.array(z.number().nullable()).meta({
            description:
              "Per metric: the relative change in percent (counts), or the difference (rates, views per visit, duration); null where either side is suppressed or the earlier count is 0.",
          }),
        })
        .optional()
        .meta({
          description: "Only with `include.comparisons`: the group in the earlier period, as that period's own query reads it.",
        }),
    }),
  ),
  meta: z.object({
    k: z.number().int(),
    total_rows: z.number().int(),
    period: z.object({ from: z.string(), to: z.string(), timezone: z.string() }),
    imported: importedSchema.optional().meta({
      description:
        "The period's imported days: a query reads per-session rows, which imported days have none of, so they are left out (`reason`: `report`).",
    }),
    comparison: z
      .object({ from: z.string(), to: z.string() })
      .optional()
      .meta({ description: "Only with `include.comparisons`: the earlier period." }),
  }),
  query: z.object({
    site_id: z.string(),
    metrics: z.array(z.string()),
    dimensions: z.array(z.string()),
    date_range: z.array(z.string()),
  }),
});
