/**
 * The reports' query parameters and response shapes, declared once with zod: the route table
 * validates with them and the OpenAPI document is generated from them. A malformed parameter
 * is a 400 naming it; objects are strict, so an unknown parameter is one too.
 */
import { z } from "zod";
import { goalId, siteId } from "../lib/ids";
import { MAX_PATTERN_LENGTH, MAX_PATTERN_STARS, starCount } from "../lib/glob";
import { VITAL_METRICS } from "../lib/schema";
import { MAX_FUNNEL_STEPS } from "./funnels";
import { decodeCursor } from "./list";
import { HOUR_PERIODS, PERIODS } from "./period";
import { COMPARE_MODES } from "./compare";
import { DIMENSIONS } from "./dimensions";
import type { PropKey } from "./explore/cells";
import { FILTER_DIMENSIONS, filterText, MAX_FILTERS, parseFilter, type Filter } from "./explore/filters";
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
  date: date.optional().meta({
    param: {
      description: "Last day of `period` (default: the last published day, normally yesterday in the site's time zone).",
    },
  }),
  from: date.optional().meta({ param: { description: "First day (inclusive), with `to`; at most 366 days." } }),
  to: date.optional().meta({
    param: {
      description:
        "Last day (inclusive), with `from`; at most the last published day (normally yesterday in the site's time zone).",
    },
  }),
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

/**
 * The period parameters of a whole-day report that can never be read by the hour, and why: an
 * hourly period is refused naming `period` with that reason (docs/reports.md, "Today").
 */
const wholeDayParams = (why: string) => ({
  ...periodParams,
  period: z
    .enum(PERIODS, {
      error: (issue) =>
        (HOUR_PERIODS as readonly unknown[]).includes(issue.input)
          ? `\`${String(issue.input)}\` is not offered here: ${why}`
          : undefined,
    })
    .optional()
    .meta({
      param: {
        description: `\`day\`, \`7d\` or \`30d\` (default): whole days ending on \`date\`. Not with \`from\`/\`to\`. Not \`today\` or \`24h\`: ${why}`,
      },
    }),
});

/** Why web vitals are not read by the hour. */
export const VITALS_NOT_HOURLY =
  "web vitals are read by whole days, since a percentile of one hour would rest on a handful of sessions' samples and read as a wide range or nothing.";
/** Why funnels are not read by the hour. */
export const FUNNELS_NOT_HOURLY =
  "a funnel follows each session's journey through its steps, which goes on after an hour closes; counted by the hour, two readings would show one session moving on.";

/** Why pages and breakdowns read `today` but not the last 24 hours. */
export const NO_ROLLING_DAY =
  "pages and breakdowns read today's closed hours as one growing total; a rolling 24 hours would cut yesterday's published day anew every hour, and each cut is one more reading of the same people. Use `today`, or `day` for yesterday.";

/**
 * The period parameters of pages and breakdowns: whole days, or `today`'s closed hours
 * (reports/today.ts), never `24h` (NO_ROLLING_DAY).
 */
const todayPeriodParams = {
  ...periodParams,
  period: z
    .enum([...PERIODS, "today"], {
      error: (issue) => (issue.input === "24h" ? `\`24h\` is not offered here: ${NO_ROLLING_DAY}` : undefined),
    })
    .optional()
    .meta({
      param: {
        description: `\`day\`, \`7d\` or \`30d\` (default): whole days ending on \`date\`; or \`today\`: the site's local day up to its last closed hour, each row a band of width k (docs/reports.md, Today). Not with \`from\`/\`to\`. Not \`24h\`: ${NO_ROLLING_DAY}`,
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

/** `filter=dimension:value`, `filter=dimension!:value` (is not), up to three: the visitors matching all (reports/explore/filters.ts). */
const filter = z
  .array(z.string().max(300))
  .max(MAX_FILTERS, `at most ${MAX_FILTERS} filters`)
  .transform((texts, ctx) => {
    const filters: Filter[] = [];
    for (const text of texts) {
      const parsed = parseFilter(text);
      if ("error" in parsed) {
        ctx.addIssue({ code: "custom", message: `${text}: ${parsed.error}` });
        return z.NEVER;
      }
      if (filters.some((f) => filterText(f) === filterText(parsed))) {
        ctx.addIssue({ code: "custom", message: `${text}: given twice` });
        return z.NEVER;
      }
      filters.push(parsed);
    }
    return filters;
  })
  .optional()
  .meta({
    param: {
      description: `Only the visitors matching every filter (up to ${MAX_FILTERS}, repeat the parameter): \`dimension:value\` (is) or \`dimension!:value\` (is not), on ${FILTER_DIMENSIONS.map((d) => `\`${d}\``).join(", ")} (\`country:DE\`, \`source!:Google\`, \`page:/pricing\`, \`goal:goal_…\`, \`prop:plan:pro\`: a custom property, its name ending at the first \`:\`). Whole days within WREN_RAW_RETENTION_DAYS (a single \`is\` filter on a session dimension reaches further on the daily timeseries and the conversions report); not with \`today\` or \`24h\`. Case is ignored where the values are a fixed set (\`country\`, \`device\`, \`source\`'s names and hosts); other values are exact.`,
    },
  });

/** `compare=previous|year`: each figure beside the same report's of an earlier period (reports/compare.ts). */
const compare = z
  .enum(COMPARE_MODES)
  .optional()
  .meta({
    param: {
      description:
        "Compare with an earlier period: `previous` (as many days before, moved back to whole weeks so that weekdays match: `7d` the 7 days before, `day` the same weekday a week earlier, `30d` 35 days earlier) or `year` (the same dates a year earlier; 29 Feb → 28 Feb). Each figure then carries `previous` (that period's own report's figure) and `delta`; the body names the period in `comparison`. Whole days only: not with `today` or `24h` (docs/reports.md, Comparisons).",
    },
  });

export const pagesQuery = z.strictObject({
  ...todayPeriodParams,
  filter,
  page: pagePattern.optional().meta({ param: { description: "Only this path, or paths matching a pattern (`/blog/*`)." } }),
  sort: z
    .enum(["visitors", "pageviews", "path"])
    .default("visitors")
    .meta({ param: { description: "Sort by `visitors` (default), `pageviews` or `path`." } }),
  order,
  limit,
  cursor,
  compare,
});

export const vitalsQuery = z.strictObject({
  ...wholeDayParams(VITALS_NOT_HOURLY),
  filter,
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
  compare,
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
  compare,
});

export const funnelsQuery = z.strictObject({
  ...wholeDayParams(FUNNELS_NOT_HOURLY),
  filter,
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
  compare,
});

export const timeseriesQuery = z.strictObject({
  ...hourPeriodParams,
  interval: z
    .enum(INTERVALS)
    .optional()
    .meta({
      param: {
        description: "`day` (default) or `hour` (local hours; periods of up to 31 days). `today` and `24h` are always per hour.",
      },
    }),
  goal: goalId.optional().meta({ param: { description: "Count conversions of this goal only (default: all goals)." } }),
  filter,
  compare,
});

/** A session dimension, or `prop:NAME` (reports/explore/cells.ts). */
export const breakdownDimension = z.union([
  z.enum(DIMENSIONS),
  z
    .string()
    .regex(/^prop:[A-Za-z0-9_.:-]{1,64}$/, "must be prop:NAME, NAME a property name")
    .transform((value) => value as PropKey),
]);

export const breakdownQuery = z.strictObject({
  ...todayPeriodParams,
  filter,
  dimension: breakdownDimension.meta({
    param: {
      description:
        "What to break visitors down by: `source` (grouped referrer), `utm_source`, `utm_medium`, `utm_campaign`, `utm_content`, `utm_term`, `entry_page`, `exit_page`, `browser`, `os`, `device` or `country` (ISO 3166-1 alpha-2), or a custom property, `prop:NAME` (its values, within WREN_RAW_RETENTION_DAYS, not with `today` or `24h`).",
    },
  }),
  goal: goalId
    .optional()
    .meta({ param: { description: "Add this goal's converting sessions, conversions and rate per value." } }),
  sort: z
    .enum(["visitors", "pageviews", "value", "converting_sessions", "conversions", "rate"])
    .default("visitors")
    .meta({
      param: {
        description:
          "Sort by `visitors` (default), `pageviews`, `value`, or with `goal` by `converting_sessions`, `conversions` or `rate`.",
      },
    }),
  order,
  limit,
  cursor,
  compare,
});

/** Why the engagement figures are not read by the hour. */
export const ENGAGEMENT_NOT_HOURLY =
  "visits are session-days, whose pageviews and duration go on after an hour closes; read by the hour, two readings would show one visit growing.";

export const aggregateQuery = z.strictObject({
  ...wholeDayParams(ENGAGEMENT_NOT_HOURLY),
  filter,
  compare,
});

/** The reports' `filter` parameter, for routes declared elsewhere (the Overview). */
export { filter as filterParam };

export * from "./response-schemas";
