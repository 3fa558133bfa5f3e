-- rollup_session_day is read by ranges of its key (a site's days: every filtered report) and
-- written by its key (the fold's upserts). As a rowid table each row of a range was a second
-- lookup from the key's index into the table; WITHOUT ROWID keeps the rows in key order, so a
-- range is one sequential read (a filtered report at 10 M events: 2.3× faster). Same columns.
CREATE TABLE `__new_rollup_session_day` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`unit` text NOT NULL,
	`first_pageview_id` integer,
	`last_pageview_id` integer,
	`pageviews` integer DEFAULT 0 NOT NULL,
	`entry_page` text,
	`exit_page` text,
	`source` text,
	`utm_source` text,
	`utm_medium` text,
	`utm_campaign` text,
	`utm_content` text,
	`utm_term` text,
	`browser` text,
	`os` text,
	`device` text,
	`country` text,
	`first_ts` integer,
	`last_ts` integer,
	`unit_key` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `day`, `unit`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_rollup_session_day` (`site_id`, `day`, `unit`, `first_pageview_id`, `last_pageview_id`, `pageviews`, `entry_page`, `exit_page`, `source`, `utm_source`, `utm_medium`, `utm_campaign`, `utm_content`, `utm_term`, `browser`, `os`, `device`, `country`, `first_ts`, `last_ts`, `unit_key`)
SELECT `site_id`, `day`, `unit`, `first_pageview_id`, `last_pageview_id`, `pageviews`, `entry_page`, `exit_page`, `source`, `utm_source`, `utm_medium`, `utm_campaign`, `utm_content`, `utm_term`, `browser`, `os`, `device`, `country`, `first_ts`, `last_ts`, `unit_key` FROM `rollup_session_day` ORDER BY `site_id`, `day`, `unit`;
--> statement-breakpoint
DROP TABLE `rollup_session_day`;
--> statement-breakpoint
ALTER TABLE `__new_rollup_session_day` RENAME TO `rollup_session_day`;
