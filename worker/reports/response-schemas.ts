/**
 * The reports' response shapes, declared once with zod: the OpenAPI document is generated from
 * them and the contract tests validate every answer against it. Query parameters are in
 * schemas.ts, which re-exports these.
 */
import { z } from "zod";
import { VITAL_METRICS } from "../lib/schema";
import { DIMENSIONS } from "./dimensions";
import { COMPARE_MODES } from "./compare";
import { importedSchema } from "./imported/schema";
import { QUALIFIERS } from "./figures";
import { HIDDEN_REASONS } from "./privacy";
import { INTERVALS } from "./timeseries";

const figureFields = {
  value: z.number().nullable().meta({ description: "The figure; null exactly when suppressed." }),
  qualifier: z.enum(QUALIFIERS).meta({
    description:
      "`exact`: counted. `estimated`: computed rather than counted (distinct sessions added over several days, a percentile from a histogram, a sum that leaves out hidden days). `suppressed`: fewer than k sessions, or hidden so that no small group can be derived; value is null.",
  }),
};

export const figureSchema = z.object(figureFields).meta({ id: "Figure", description: "A report figure with its qualifier." });

/** A revenue figure (reports/revenue.ts): a figure in a revenue goal's currency. */
export const revenueFigureSchema = z
  .object({
    ...figureFields,
    currency: z.string().meta({ description: "The goal's ISO 4217 currency code.", example: "EUR" }),
  })
  .meta({
    id: "RevenueFigure",
    description:
      "A sum of money of a revenue goal's converting units: shown only where their cell is, hidden when one unit holds more than 60 % of it, perturbed and rounded to whole currency units (docs/reports.md, Revenue).",
  });

const revenueFields = {
  total_revenue: revenueFigureSchema
    .optional()
    .meta({ description: "Revenue goals only: the converting units' revenue, perturbed, in whole currency units." }),
  average_revenue: revenueFigureSchema
    .optional()
    .meta({ description: "Revenue goals only: total_revenue / converting_sessions as shown, 2 decimals." }),
};

/** A report's figure: with `compare`, also its earlier side and the change (reports/compare.ts). */
const reportFigureSchema = z
  .object({
    ...figureFields,
    previous: figureSchema.optional().meta({
      description:
        "Only with `compare`: the same figure in the earlier period, exactly as that period's own report shows it; `suppressed` for a row that report does not list (it may be hidden), an exact 0 when that period had no visitors at all.",
    }),
    delta: z
      .object({
        absolute: figureSchema.meta({ description: "value − previous; suppressed when either side is." }),
        relative: figureSchema.nullable().meta({
          description:
            "(value − previous) / previous, rounded to 4 decimals; null when previous is 0; suppressed when either side is.",
        }),
      })
      .optional()
      .meta({ id: "Delta", description: "Only with `compare`: the change from `previous`." }),
  })
  .meta({
    id: "ReportFigure",
    description: "A report figure with its qualifier; with `compare`, also its earlier value and the change.",
  });

/** A figure of pages and breakdowns, which `period=today` reads as bands (reports/today.ts). */
const bandableFigureSchema = reportFigureSchema
  .extend({
    high: z.number().int().optional().meta({
      description:
        "Only with `period=today`: the figure is a band, from `value` to `high` (width k; a total: the sum of its rows' bands), read from perturbed counts (docs/reports.md, Today).",
    }),
  })
  .meta({ id: "BandableFigure", description: "A report figure with its qualifier; with `period=today`, a band up to `high`." });

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
  imported: importedSchema.optional(),
  comparison: z
    .object({
      mode: z.enum(COMPARE_MODES),
      from: z.string().meta({ example: "2026-09-17" }),
      to: z.string().meta({ example: "2026-10-16" }),
      days: z.number().int(),
      imported: importedSchema.optional().meta({ description: "The earlier period's imported days, read by the same rule." }),
    })
    .optional()
    .meta({
      id: "ComparisonPeriod",
      description: "Only with `compare`: the earlier period every `previous` figure is read from (docs/reports.md, Comparisons).",
    }),
  k: z.number().int().meta({ description: "The k of the k-anonymity filter: the fewest sessions a shown figure is drawn from." }),
  published_through: z.string().meta({
    description:
      "The last local day of the site that is published: the freshest day any report can cover now. A day is published shortly after it ends in the site's time zone (docs/reports.md, Freshness).",
    example: "2026-11-20",
  }),
  next_figures: z
    .object({
      hour: z.string().meta({
        format: "date-time",
        description:
          "When the running local hour's figures are published: its end plus the publisher's grace (15 s). Hourly periods (`today`, `24h`) gain a point then.",
      }),
      day: z.string().meta({
        format: "date-time",
        description:
          "When today's whole-day figures are published: the next local midnight plus the grace. Whole-day reports gain a day then.",
      }),
    })
    .meta({
      id: "NextFigures",
      description:
        "When the next figures of the site arrive (docs/reports.md, Freshness), as instants; the site's zone is `period.timezone`.",
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
        visitors: bandableFigureSchema.meta({
          description: "Distinct sessions that viewed the path, added up per day (estimated over several days).",
        }),
        pageviews: bandableFigureSchema.meta({ description: "Pageviews of the path." }),
      }),
    ),
    totals: z.object({ pageviews: bandableFigureSchema.meta({ description: "Sum of the visible rows' pageviews." }) }),
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
        p75: reportFigureSchema.meta({
          description:
            "75th percentile, estimated from a log-spaced histogram (±6 %); shown only when the histogram bucket holding it has samples of at least k sessions, else suppressed and given as the range p75_low–p75_high.",
        }),
        p75_low: reportFigureSchema.meta({
          description:
            "Lower end of the range the 75th percentile lies in: the lower edge of the nearest bucket at or below it that holds samples of at least k sessions. Suppressed when there is none on either side.",
        }),
        p75_high: reportFigureSchema.meta({
          description:
            "Upper end of that range: the upper edge of the nearest bucket at or above it that holds samples of at least k sessions.",
        }),
        good: reportFigureSchema.meta({
          description:
            "Share (0–1) of samples at or under the good threshold (LCP 2.5 s, INP 200 ms, CLS 0.1, FCP 1.8 s, TTFB 0.8 s).",
        }),
        needs_improvement: reportFigureSchema.meta({ description: "Share (0–1) between the good and poor thresholds." }),
        poor: reportFigureSchema.meta({
          description: "Share (0–1) over the poor threshold (LCP 4 s, INP 500 ms, CLS 0.25, FCP 3 s, TTFB 1.8 s).",
        }),
        samples: reportFigureSchema.meta({ description: "Measurements counted." }),
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
        conversions: reportFigureSchema.meta({ description: "Conversions counted on the goal." }),
        converting_sessions: reportFigureSchema.meta({
          description: "Distinct sessions that converted (a conversion without a session counts as one).",
        }),
        sessions: reportFigureSchema.meta({
          description: "The denominator: sessions seen on the site in the period (the timeseries' visitors).",
        }),
        rate: reportFigureSchema.meta({ description: "converting_sessions / sessions (0–1)." }),
        ...revenueFields,
      }),
    ),
    totals: z.object({ conversions: reportFigureSchema, sessions: reportFigureSchema }),
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
        sessions: reportFigureSchema.meta({ description: "Sessions that completed this goal and every earlier one, in order." }),
        dropoff: reportFigureSchema.meta({ description: "Sessions of the previous step that did not reach this one." }),
        rate: reportFigureSchema.meta({ description: "sessions / the first step's sessions (0–1)." }),
      }),
    ),
  })
  .meta({ id: "FunnelReport" });

export const breakdownResponse = z
  .object({
    ...meta,
    dimension: z.union([z.enum(DIMENSIONS), z.string().regex(/^prop:/)]).meta({ description: "The dimension asked for: a session dimension, or `prop:NAME`." }),
    rows: z.array(
      z.object({
        value: z.string().nullable().meta({
          description:
            "The dimension's value; null for visitors without one (no UTM, unknown country, data from before dimensions), and in the `other` row.",
        }),
        other: otherFlag("value"),
        visitors: bandableFigureSchema.meta({ description: "Distinct sessions with this value (per day, added up)." }),
        pageviews: bandableFigureSchema.meta({
          description: "Their pageviews that day (all of them, not only the entry or exit page's).",
        }),
        converting_sessions: reportFigureSchema
          .optional()
          .meta({ description: "With `goal`: those of them that converted on it." }),
        conversions: reportFigureSchema.optional().meta({ description: "With `goal`: their conversions on it." }),
        rate: reportFigureSchema
          .optional()
          .meta({ description: "With `goal`: converting_sessions / visitors (0–1), its denominator the row's visitors." }),
        ...revenueFields,
      }),
    ),
    totals: z
      .object({
        visitors: bandableFigureSchema,
        pageviews: bandableFigureSchema,
        converting_sessions: reportFigureSchema.optional(),
        conversions: reportFigureSchema.optional(),
      })
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
        visitors: reportFigureSchema.meta({ description: "Distinct sessions seen in the day or hour." }),
        pageviews: reportFigureSchema,
        conversions: reportFigureSchema.meta({ description: "Conversions, from the goal cells the conversions report shows." }),
        hidden: z.enum(HIDDEN_REASONS).optional().meta({
          description:
            "Why visitors and pageviews are suppressed, when they are: quiet_hours (an hour before the day's first hour of k sessions, empty or not), small_group (fewer than k sessions), day_protection (k or more, hidden so that a total minus what is shown does not single out a small group).",
        }),
        previous_date: z.string().nullable().optional().meta({
          description:
            "Only with `compare`: the earlier period's date (or date and hour) this point is compared with; null for an hour that day did not have (a clock change).",
        }),
        imported: z.literal(true).optional().meta({
          description: "An imported day: visitors and pageviews are its imported totals (estimated; suppressed below k).",
        }),
        from_hours: z.literal(true).optional().meta({
          description:
            "A day whose own total is withheld (its small hours' few sessions would follow from it): visitors and pageviews are the sum of its shown hours, a lower bound (estimated).",
        }),
      }),
    ),
    totals: z
      .object({ visitors: reportFigureSchema, pageviews: reportFigureSchema, conversions: reportFigureSchema })
      .meta({ description: "Sums of the visible points." }),
  })
  .meta({ id: "TimeseriesReport" });

/** A live figure (reports/privacy/live.ts): a Figure and the band of units it stands for. */
export const liveFigureSchema = figureSchema
  .extend({
    value: z
      .number()
      .int()
      .nullable()
      .meta({ description: "The band's lower bound (a multiple of k, at least k); null when suppressed." }),
    qualifier: z.enum(QUALIFIERS).meta({
      description:
        "`estimated`: k or more units, read as the band their perturbed count falls in. `suppressed`: fewer than k (0 included). Never `exact`.",
    }),
    low: z.number().int().meta({ description: "Fewest units the band stands for: 0 when suppressed." }),
    high: z.number().int().meta({ description: "Most units the band stands for (low + k − 1; k − 1 when suppressed)." }),
  })
  .meta({
    id: "LiveFigure",
    description: 'Visitors in a live window: "fewer than k" (0 … k − 1), or a band of width k such as 10–14.',
  });

export const liveResponse = z
  .object({
    site: z.string(),
    as_of: z
      .string()
      .meta({ format: "date-time", description: "The end of both windows: the last whole minute at least 15 s ago." }),
    next_update: z
      .string()
      .meta({ format: "date-time", description: "When the next reading is first served; the same one is served until then." }),
    timezone: z.string().meta({ description: "The site's time zone." }),
    k: z.number().int(),
    windows: z
      .object({
        "5m": liveFigureSchema.meta({ description: "Units with any event in the 5 minutes before as_of." }),
        "30m": liveFigureSchema.meta({ description: "Units with any event in the 30 minutes before as_of." }),
      })
      .strict(),
  })
  .meta({ id: "Live" });

/** One side of a rate (reports/engagement.ts), named, so a screen can write "41 of 97 visits". */
const rateSide = (name: string) =>
  figureSchema
    .extend({ name: z.literal(name) })
    .meta({ description: `The rate's ${name === "visits" ? "denominator" : "numerator"}: ${name}.` });

export const aggregateResponse = z
  .object({
    ...meta,
    results: z.object({
      visitors: reportFigureSchema.meta({ description: "Distinct sessions per day, summed over the period: the timeseries' total." }),
      pageviews: reportFigureSchema.meta({ description: "Pageviews: the timeseries' total." }),
      visits: reportFigureSchema.meta({
        description: "Visits: session-days with a pageview (a session's pageviews on one local day).",
      }),
      bounces: reportFigureSchema.meta({ description: "Visits of a single pageview." }),
      bounce_rate: reportFigureSchema
        .extend({ numerator: rateSide("bounces"), denominator: rateSide("visits") })
        .meta({ description: "bounces / visits (0–1, 4 decimals), with the figures it divides." }),
      views_per_visit: reportFigureSchema.meta({ description: "Pageviews of the visits / visits, 2 decimals." }),
      visit_duration: reportFigureSchema.meta({
        description:
          "Median seconds from a visit's first pageview to its last (0 for a single pageview); shown only when its histogram bucket alone holds k visits.",
      }),
      visit_duration_low: reportFigureSchema.meta({
        description:
          "The median lies in visit_duration_low – visit_duration_high (s): the smallest fixed block of buckets around it holding k visits.",
      }),
      visit_duration_high: reportFigureSchema,
    }),
  })
  .meta({ id: "AggregateReport" });
