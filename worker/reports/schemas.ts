/**
 * The reports' query parameters and response shapes, declared once with zod: the route table
 * validates with them and the OpenAPI document is generated from them. A malformed parameter
 * is a 400 naming it; objects are strict, so an unknown parameter is one too.
 */
import { z } from "zod";
import { goalId, siteId } from "../lib/ids";
import { MAX_PATTERN_LENGTH, MAX_PATTERN_STARS, starCount } from "../lib/glob";
import { VITAL_METRICS } from "../lib/schema";
import { QUALIFIERS } from "./figures";
import { MAX_FUNNEL_STEPS } from "./funnels";
import { decodeCursor } from "./list";
import { HOUR_PERIODS, PERIODS } from "./period";
import { DIMENSIONS, filterValue, isDimension } from "./dimensions";
import { INTERVALS } from "./timeseries";
import { canonicalTimeZone } from "./timezone";

const date = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD")
  .refine(
    (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    "must be a calendar date YYYY-MM-DD",
  );

const periodParams = {
  site: siteId.meta({ param: { description: "Site id; it must be on the key's allowlist." } }),
  period: z
    .enum(PERIODS)
    .optional()
    .meta({
      param: { description: "`day`, `7d` or `30d` (default): whole days ending on `date`. Not with `from`/`to`." },
    }),
  date: date
    .optional()
    .meta({ param: { description: "Last day of `period` (default: the last published day, normally yesterday in the site's time zone)." } }),
  from: date.optional().meta({ param: { description: "First day (inclusive), with `to`; at most 366 days." } }),
  to: date
    .optional()
    .meta({ param: { description: "Last day (inclusive), with `from`; at most the last published day (normally yesterday in the site's time zone)." } }),
  tz: z
    .string()
    .max(64)
    .refine((name) => canonicalTimeZone(name) !== null, "must be an IANA time zone name")
    .optional()
    .meta({
      param: {
        description: "The site's time zone (IANA). Optional; any other zone is a 422: days are always cut in the site's zone.",
      },
    }),
};

/** The period parameters of the reports that also cover closed hours: the timeseries and conversions. */
const hourPeriodParams = {
  ...periodParams,
  period: z
    .enum([...PERIODS, ...HOUR_PERIODS])
    .optional()
    .meta({
      param: {
        description:
          "`day`, `7d` or `30d` (default): whole days ending on `date`; or `today` (the site's local day up to its last closed hour) or `24h` (the 24 closed hours before now), reported per hour. Not with `from`/`to`.",
      },
    }),
};

// Matching is linear whatever the pattern (lib/glob.ts); the bounds keep each match cheap too.
const pagePattern = z
  .string()
  .max(MAX_PATTERN_LENGTH)
  .regex(/^\/[^\s?#]*$/, "must be a path or a pattern starting with / (* is a wildcard)")
  .refine((pattern) => starCount(pattern) <= MAX_PATTERN_STARS, `may have at most ${MAX_PATTERN_STARS} * wildcards`);

const order = z
  .enum(["asc", "desc"])
  .optional()
  .meta({
    param: { description: "`desc` (default for figures) or `asc` (default for names). Suppressed values sort last either way." },
  });
const limit = z.coerce
  .number()
  .int()
  .min(1)
  .max(1000)
  .optional()
  .meta({ param: { description: "Rows per page, 1–1000 (JSON default 100; CSV and NDJSON: all rows unless given)." } });
const cursor = z
  .string()
  .max(2000)
  .transform((value, ctx) => {
    const decoded = decodeCursor(value);
    if (!decoded) {
      ctx.addIssue({ code: "custom", message: "must be a next_cursor value from a previous page" });
      return z.NEVER;
    }
    return decoded;
  })
  .optional()
  .meta({ param: { description: "next_cursor of the previous page." } });

/** `filter=dimension:value`: the visitors with that value only (reports/filter.ts). */
const filter = z
  .string()
  .max(300)
  .transform((text, ctx) => {
    const at = text.indexOf(":");
    const dimension = text.slice(0, at);
    const value = text.slice(at + 1);
    if (at < 0 || !isDimension(dimension) || value === "") {
      ctx.addIssue({ code: "custom", message: `must be dimension:value, the dimension one of ${DIMENSIONS.join(", ")} (e.g. country:DE)` });
      return z.NEVER;
    }
    const canonical = filterValue(dimension, value);
    if ("error" in canonical) {
      ctx.addIssue({ code: "custom", message: canonical.error });
      return z.NEVER;
    }
    return { dimension, value: canonical.value };
  })
  .optional()
  .meta({
    param: {
      description:
        "Only the visitors with this value of a dimension, as `dimension:value` (`country:DE`, `source:Google`, `utm_campaign:launch`, `device:mobile`): the breakdown's cells of that value, day by day. Whole days only (not with `today`, `24h` or hourly points); one filter. Case is ignored where the values are a fixed set (`country`, `device`, `source`'s names and hosts); other values are exact.",
    },
  });

export const pagesQuery = z.strictObject({
  ...periodParams,
  page: pagePattern.optional().meta({ param: { description: "Only this path, or paths matching a pattern (`/blog/*`)." } }),
  sort: z
    .enum(["visitors", "pageviews", "path"])
    .default("visitors")
    .meta({ param: { description: "Sort by `visitors` (default), `pageviews` or `path`." } }),
  order,
  limit,
  cursor,
});

export const vitalsQuery = z.strictObject({
  ...periodParams,
  page: pagePattern.optional().meta({ param: { description: "Only this path, or paths matching a pattern (`/blog/*`)." } }),
  metric: z
    .enum(VITAL_METRICS)
    .optional()
    .meta({ param: { description: "Only this metric." } }),
  sort: z
    .enum(["samples", "p75", "path"])
    .default("samples")
    .meta({ param: { description: "Sort by `samples` (default), `p75` or `path` (then metric)." } }),
  order,
  limit,
  cursor,
});

export const conversionsQuery = z.strictObject({
  ...hourPeriodParams,
  filter,
  sort: z
    .enum(["conversions", "converting_sessions", "rate", "name"])
    .default("conversions")
    .meta({
      param: { description: "Sort by `conversions` (default), `converting_sessions`, `rate` or goal `name`." },
    }),
  order,
  limit,
  cursor,
});

export const funnelsQuery = z.strictObject({
  ...periodParams,
  goals: z
    .string()
    .max(1000)
    .transform((value, ctx) => {
      const ids = value.split(",").map((s) => s.trim());
      if (ids.length < 2 || ids.length > MAX_FUNNEL_STEPS) {
        ctx.addIssue({ code: "custom", message: `must list 2 to ${MAX_FUNNEL_STEPS} goal ids, comma-separated` });
        return z.NEVER;
      }
      if (!ids.every((id) => goalId.safeParse(id).success)) {
        ctx.addIssue({ code: "custom", message: "must be goal ids (goal_…), comma-separated" });
        return z.NEVER;
      }
      if (new Set(ids).size !== ids.length) {
        ctx.addIssue({ code: "custom", message: "must not repeat a goal" });
        return z.NEVER;
      }
      return ids;
    })
    .meta({ param: { description: `The funnel's goals in order, comma-separated (2–${MAX_FUNNEL_STEPS}).` } }),
});

export const timeseriesQuery = z.strictObject({
  ...hourPeriodParams,
  interval: z
    .enum(INTERVALS)
    .optional()
    .meta({ param: { description: "`day` (default) or `hour` (local hours; periods of up to 31 days). `today` and `24h` are always per hour." } }),
  goal: goalId.optional().meta({ param: { description: "Count conversions of this goal only (default: all goals)." } }),
  filter,
});

export const breakdownQuery = z.strictObject({
  ...periodParams,
  dimension: z.enum(DIMENSIONS).meta({
    param: {
      description:
        "What to break visitors down by: `source` (grouped referrer), `utm_source`, `utm_medium`, `utm_campaign`, `utm_content`, `utm_term`, `entry_page`, `exit_page`, `browser`, `os`, `device` or `country` (ISO 3166-1 alpha-2).",
    },
  }),
  goal: goalId.optional().meta({ param: { description: "Add this goal's converting sessions, conversions and rate per value." } }),
  sort: z
    .enum(["visitors", "pageviews", "value", "converting_sessions", "conversions", "rate"])
    .default("visitors")
    .meta({ param: { description: "Sort by `visitors` (default), `pageviews`, `value`, or with `goal` by `converting_sessions`, `conversions` or `rate`." } }),
  order,
  limit,
  cursor,
});

// Responses.

export const figureSchema = z
  .object({
    value: z.number().nullable().meta({ description: "The figure; null exactly when suppressed." }),
    qualifier: z.enum(QUALIFIERS).meta({
      description:
        "`exact`: counted. `estimated`: computed rather than counted (distinct sessions added over several days, a percentile from a histogram, a sum that leaves out hidden days). `suppressed`: fewer than k sessions, or hidden so that no small group can be derived; value is null.",
    }),
  })
  .meta({ id: "Figure", description: "A report figure with its qualifier." });

const periodSchema = z
  .object({
    from: z.string().meta({ example: "2026-10-22" }),
    to: z.string().meta({ example: "2026-11-20" }),
    days: z.number().int(),
    timezone: z.string().meta({ description: "The site's time zone, in which the days are cut.", example: "Europe/Berlin" }),
    start: z.string().optional().meta({
      format: "date-time",
      description: "Periods of closed hours (`today`, `24h`): the instant the first hour starts.",
    }),
    end: z.string().optional().meta({
      format: "date-time",
      description: "Periods of closed hours: the instant the last closed hour ends (the next one is still running).",
    }),
  })
  .meta({ id: "ReportPeriod" });

const meta = {
  site: z.string(),
  period: periodSchema,
  k: z.number().int().meta({ description: "The k of the k-anonymity filter: the fewest sessions a shown figure is drawn from." }),
  published_through: z.string().meta({
    description:
      "The last local day of the site that is published: the freshest day any report can cover now. A day is published shortly after it ends in the site's time zone (docs/reports.md, Freshness).",
    example: "2026-11-20",
  }),
};

const goalRef = z.object({ id: z.string(), name: z.string(), kind: z.string() });
/** hidden-rows.ts: the one row standing for every label hidden over the period. */
const otherFlag = (labels: string) =>
  z.boolean().meta({
    description: `True in the one row that stands for every ${labels} hidden over the whole period ("other values, fewer than k each"): it names none of them, carries no count and comes last in every order. False in every other row.`,
  });
const nextCursor = z.string().nullable().meta({ description: "Pass as `cursor` for the next page; null on the last page." });

export const pagesResponse = z
  .object({
    ...meta,
    rows: z.array(
      z.object({
        path: z.string().nullable().meta({ description: "The path; null only in the `other` row." }),
        other: otherFlag("path"),
        visitors: figureSchema.meta({
          description: "Distinct sessions that viewed the path, added up per day (estimated over several days).",
        }),
        pageviews: figureSchema.meta({ description: "Pageviews of the path." }),
      }),
    ),
    totals: z.object({ pageviews: figureSchema.meta({ description: "Sum of the visible rows' pageviews." }) }),
    next_cursor: nextCursor,
  })
  .meta({ id: "PagesReport" });

export const vitalsResponse = z
  .object({
    ...meta,
    rows: z.array(
      z.object({
        path: z.string().nullable().meta({ description: "The path; null only in a metric's `other` row." }),
        other: otherFlag("path of this metric"),
        metric: z.enum(VITAL_METRICS),
        unit: z.enum(["ms", "score"]).meta({ description: "`ms` for LCP, INP, FCP, TTFB; `score` for CLS." }),
        p75: figureSchema.meta({
          description:
            "75th percentile, estimated from a log-spaced histogram (±6 %); shown only when the histogram bucket holding it has samples of at least k sessions, else suppressed and given as the range p75_low–p75_high.",
        }),
        p75_low: figureSchema.meta({
          description:
            "Lower end of the range the 75th percentile lies in: the lower edge of the nearest bucket at or below it that holds samples of at least k sessions. Suppressed when there is none on either side.",
        }),
        p75_high: figureSchema.meta({
          description: "Upper end of that range: the upper edge of the nearest bucket at or above it that holds samples of at least k sessions.",
        }),
        good: figureSchema.meta({
          description:
            "Share (0–1) of samples at or under the good threshold (LCP 2.5 s, INP 200 ms, CLS 0.1, FCP 1.8 s, TTFB 0.8 s).",
        }),
        needs_improvement: figureSchema.meta({ description: "Share (0–1) between the good and poor thresholds." }),
        poor: figureSchema.meta({
          description: "Share (0–1) over the poor threshold (LCP 4 s, INP 500 ms, CLS 0.25, FCP 3 s, TTFB 1.8 s).",
        }),
        samples: figureSchema.meta({ description: "Measurements counted." }),
      }),
    ),
    next_cursor: nextCursor,
  })
  .meta({ id: "VitalsReport" });

export const conversionsResponse = z
  .object({
    ...meta,
    rows: z.array(
      z.object({
        goal: goalRef,
        conversions: figureSchema.meta({ description: "Conversions counted on the goal." }),
        converting_sessions: figureSchema.meta({
          description: "Distinct sessions that converted (a conversion without a session counts as one).",
        }),
        sessions: figureSchema.meta({
          description: "The denominator: sessions seen on the site in the period (the timeseries' visitors).",
        }),
        rate: figureSchema.meta({ description: "converting_sessions / sessions (0–1)." }),
      }),
    ),
    totals: z.object({ conversions: figureSchema, sessions: figureSchema }),
    next_cursor: nextCursor,
  })
  .meta({ id: "ConversionsReport" });

export const funnelsResponse = z
  .object({
    ...meta,
    steps: z.array(
      z.object({
        step: z.number().int(),
        goal: goalRef,
        sessions: figureSchema.meta({ description: "Sessions that completed this goal and every earlier one, in order." }),
        dropoff: figureSchema.meta({ description: "Sessions of the previous step that did not reach this one." }),
        rate: figureSchema.meta({ description: "sessions / the first step's sessions (0–1)." }),
      }),
    ),
  })
  .meta({ id: "FunnelReport" });

export const breakdownResponse = z
  .object({
    ...meta,
    dimension: z.enum(DIMENSIONS),
    rows: z.array(
      z.object({
        value: z.string().nullable().meta({
          description:
            "The dimension's value; null for visitors without one (no UTM, unknown country, data from before dimensions), and in the `other` row.",
        }),
        other: otherFlag("value"),
        visitors: figureSchema.meta({ description: "Distinct sessions with this value (per day, added up)." }),
        pageviews: figureSchema.meta({ description: "Their pageviews that day (all of them, not only the entry or exit page's)." }),
        converting_sessions: figureSchema.optional().meta({ description: "With `goal`: those of them that converted on it." }),
        conversions: figureSchema.optional().meta({ description: "With `goal`: their conversions on it." }),
        rate: figureSchema.optional().meta({ description: "With `goal`: converting_sessions / visitors (0–1), its denominator the row's visitors." }),
      }),
    ),
    totals: z
      .object({ visitors: figureSchema, pageviews: figureSchema, converting_sessions: figureSchema.optional(), conversions: figureSchema.optional() })
      .meta({ description: "Sums of the visible rows." }),
    next_cursor: nextCursor,
  })
  .meta({ id: "BreakdownReport" });

export const timeseriesResponse = z
  .object({
    ...meta,
    interval: z.enum(INTERVALS),
    points: z.array(
      z.object({
        start: z.string().meta({ description: "UTC instant at which the local day or hour starts.", format: "date-time" }),
        local: z
          .string()
          .meta({ description: "Local date, or local date and hour (YYYY-MM-DDTHH:MM).", example: "2026-11-20T13:00" }),
        visitors: figureSchema.meta({ description: "Distinct sessions seen in the day or hour." }),
        pageviews: figureSchema,
        conversions: figureSchema.meta({ description: "Conversions, from the goal cells the conversions report shows." }),
      }),
    ),
    totals: z
      .object({ visitors: figureSchema, pageviews: figureSchema, conversions: figureSchema })
      .meta({ description: "Sums of the visible points." }),
  })
  .meta({ id: "TimeseriesReport" });
