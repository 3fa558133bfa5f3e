/** What every report route declares beside its figures: the headers of its 200 and the refusals it shares (OpenAPI). */
import type { HeaderSpec } from "../reply";

/** The headers every report's 200 carries in every format (reports/reply.ts, `inFormat`). */
export const REPORT_HEADERS: Record<string, HeaderSpec> = {
  Vary: {
    description: "The body depends on `Accept` (JSON, CSV or NDJSON).",
    required: true,
    schema: { type: "string", const: "Accept" },
  },
  "Wren-Published-Through": {
    description: "The site's last published local day: the freshest the report can be.",
    required: true,
    schema: { type: "string", format: "date" },
  },
};

/** A paginated report's: and while a next page exists, `Link` to it. */
export const PAGED_REPORT_HEADERS: Record<string, HeaderSpec> = {
  ...REPORT_HEADERS,
  Link: {
    description: 'The next page, `</api/v1/…?…&cursor=…>; rel="next"`; absent on the last page.',
    required: false,
    schema: { type: "string", pattern: '^<[^>]+>; rel="next"$' },
  },
};

/** What every report answers besides its figures: the site unknown, or the request refused for it (problem+json naming the field). */
export const REPORT_REFUSALS = {
  404: { description: "No such site (`field`: `site`)." },
  422: {
    description:
      "Refused for this site: `tz` other than its zone; `to` or `date` after the last published day; a goal that is not the site's; for funnels and filters, a period starting before the days WREN_RAW_RETENTION_DAYS keeps.",
  },
} as const;
