-- Custom properties (issue 39). rollup_prop_day_units is WITHOUT ROWID (added by hand: drizzle
-- cannot say it): read and deleted by ranges of its key, like rollup_session_day (0021).
CREATE TABLE `prop_drops` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`reason` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `day`, `reason`),
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `rollup_prop_day_units` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`name` text NOT NULL,
	`value` text NOT NULL,
	`unit` text NOT NULL,
	`events` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `day`, `unit`, `name`, `value`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `rollup_prop_day_units_by_value` ON `rollup_prop_day_units` (`site_id`,`name`,`value`,`day`);--> statement-breakpoint
CREATE TABLE `site_props` (
	`site_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`site_id`, `name`),
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `conversions` ADD `props` text;--> statement-breakpoint
ALTER TABLE `events` ADD `props` text;