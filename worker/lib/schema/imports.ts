/**
 * Imported history (issue 41, docs/imports.md): daily aggregates from another analytics tool's
 * export (Plausible, Umami, GoatCounter), kept apart from the collected rollups. An imported
 * day holds no unit and no raw row: only the day's counts, per report and value, as the export
 * gave them (or as Wren counted them from an event export, whose session ids are never stored).
 * A day is imported only where nothing was collected (docs/imports.md "Overlap"), and each day
 * belongs to one import at a time: a later import of the same day replaces its cells.
 *
 * `key_sum` is each cell's noise key (reports/noise.ts): drawn from the database's secret and
 * the cell's identity when it is written, so the cell reads the same until its counts change.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { siteIdColumn } from "./core";

/** One run of `wren import` or one dashboard upload of one file. */
export const imports = sqliteTable(
  "imports",
  {
    id: text("id").primaryKey(),
    siteId: siteIdColumn(),
    /** plausible | umami | goatcounter */
    source: text("source").notNull(),
    /** The file's name as given (a label for the list; never read back as a path). */
    fileName: text("file_name").notNull(),
    /** SHA-256 of the file's bytes, hex: the same file again is recognised, not read twice. */
    fileSha256: text("file_sha256").notNull(),
    /** running (or interrupted: the next run of the same file resumes) | done */
    status: text("status").notNull(),
    /** The last day written, in order: a resumed run starts after it. */
    resumeAfter: text("resume_after"),
    rowsRead: integer("rows_read").notNull().default(0),
    rowsRefused: integer("rows_refused").notNull().default(0),
    daysImported: integer("days_imported").notNull().default(0),
    firstDay: text("first_day"),
    lastDay: text("last_day"),
    /** JSON: refused rows counted by reason, and the first few with their file and line. */
    refusals: text("refusals").notNull().default("{}"),
    /** Who ran it: the principal's id (an API key's or an account's), or "cli". */
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
    finishedAt: integer("finished_at"),
  },
  (t) => [uniqueIndex("imports_site_file").on(t.siteId, t.fileSha256), index("imports_site").on(t.siteId)],
);

/** An imported day's site totals (Plausible's imported_visitors), and which import owns the day. */
export const importedDays = sqliteTable(
  "imported_days",
  {
    siteId: siteIdColumn(),
    day: text("day").notNull(),
    importId: text("import_id").notNull(),
    visitors: integer("visitors").notNull().default(0),
    pageviews: integer("pageviews").notNull().default(0),
    visits: integer("visits").notNull().default(0),
    bounces: integer("bounces").notNull().default(0),
    /** The day's visits' summed duration in seconds (exports give the sum, not each visit's). */
    visitDuration: integer("visit_duration").notNull().default(0),
    keySum: integer("key_sum").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.day] }), index("imported_days_import").on(t.importId)],
);

/**
 * An imported day's row of one report: `dimension` is `page` or one of the breakdown's
 * dimensions (source, utm_*, entry_page, exit_page, browser, os, device, country).
 */
export const importedCells = sqliteTable(
  "imported_cells",
  {
    siteId: siteIdColumn(),
    day: text("day").notNull(),
    dimension: text("dimension").notNull(),
    value: text("value").notNull(),
    visitors: integer("visitors").notNull().default(0),
    pageviews: integer("pageviews").notNull().default(0),
    keySum: integer("key_sum").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.siteId, t.dimension, t.day, t.value] })],
);
