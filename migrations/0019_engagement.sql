CREATE TABLE `rollup_duration_histogram` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`bucket` integer NOT NULL,
	`units` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `day`, `bucket`)
);
--> statement-breakpoint
CREATE TABLE `rollup_engagement_day` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`visits` integer DEFAULT 0 NOT NULL,
	`visits_key_sum` integer DEFAULT 0 NOT NULL,
	`pageviews` integer DEFAULT 0 NOT NULL,
	`bounces` integer DEFAULT 0 NOT NULL,
	`bounce_key_sum` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `day`)
);
--> statement-breakpoint
ALTER TABLE `rollup_page_day_units` ADD `pageviews` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_session_day` ADD `first_ts` integer;--> statement-breakpoint
ALTER TABLE `rollup_session_day` ADD `last_ts` integer;--> statement-breakpoint
ALTER TABLE `rollup_session_day` ADD `unit_key` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Backfill (docs/operations.md, upgrade notes). The session-days' span: the stamps of the
-- pageviews their ids name (still stored for the days within raw retention; null where gone),
-- earliest first, and none where either is gone (a span of one would read as 0 s); their unit keys as noise.ts unitKeySql computes them.
UPDATE `rollup_session_day` SET `first_ts` = (SELECT `ts` FROM `events` WHERE `id` = `first_pageview_id`), `last_ts` = (SELECT `ts` FROM `events` WHERE `id` = `last_pageview_id`), `unit_key` = ((((CASE WHEN substr(unit, 2, 1) = ':' THEN CAST(substr(unit, 3) AS INTEGER) ELSE coalesce(unicode(substr(unit, 1, 1)), 0) + 128 * coalesce(unicode(substr(unit, 2, 1)), 0) + 16384 * coalesce(unicode(substr(unit, 3, 1)), 0) + 2097152 * coalesce(unicode(substr(unit, 4, 1)), 0) END) % 2147483647) * (SELECT secret FROM rollup_cell_key WHERE id = 1)) % 2147483647 % 65536);--> statement-breakpoint
UPDATE `rollup_session_day` SET `first_ts` = `last_ts`, `last_ts` = `first_ts` WHERE `first_ts` > `last_ts`;--> statement-breakpoint
UPDATE `rollup_session_day` SET `first_ts` = NULL, `last_ts` = NULL WHERE `first_ts` IS NULL OR `last_ts` IS NULL;--> statement-breakpoint
-- A session's pageviews of the path within its session-day's span (1 for a unit without a
-- session, one pageview by construction; at least 1 where the raw rows are gone).
UPDATE `rollup_page_day_units` SET `pageviews` = max(1, (SELECT count(*) FROM `rollup_session_day` s JOIN `events` e ON e.`site_id` = s.`site_id` AND e.`path` = `rollup_page_day_units`.`path` AND e.`ts` BETWEEN s.`first_ts` AND s.`last_ts` AND e.`session_id` = s.`unit` AND e.`kind` = 'pageview' WHERE s.`site_id` = `rollup_page_day_units`.`site_id` AND s.`day` = `rollup_page_day_units`.`day` AND s.`unit` = `rollup_page_day_units`.`unit`)) WHERE substr(`unit`, 2, 1) != ':';
