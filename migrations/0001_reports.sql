CREATE TABLE `rollup_goal_day` (
	`site_id` text NOT NULL,
	`goal_id` text NOT NULL,
	`day` text NOT NULL,
	`units` integer DEFAULT 0 NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `day`, `goal_id`)
);
--> statement-breakpoint
CREATE TABLE `rollup_goal_day_units` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`site_id` text NOT NULL,
	`goal_id` text NOT NULL,
	`day` text NOT NULL,
	`unit` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rollup_goal_day_units_key` ON `rollup_goal_day_units` (`site_id`,`goal_id`,`day`,`unit`);--> statement-breakpoint
CREATE TABLE `rollup_goal_hour` (
	`site_id` text NOT NULL,
	`goal_id` text NOT NULL,
	`hour` integer NOT NULL,
	`day` text NOT NULL,
	`units` integer DEFAULT 0 NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `goal_id`, `hour`)
);
--> statement-breakpoint
CREATE INDEX `rollup_goal_hour_day` ON `rollup_goal_hour` (`site_id`,`day`);--> statement-breakpoint
CREATE TABLE `rollup_goal_hour_units` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`site_id` text NOT NULL,
	`goal_id` text NOT NULL,
	`hour` integer NOT NULL,
	`unit` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rollup_goal_hour_units_key` ON `rollup_goal_hour_units` (`site_id`,`goal_id`,`hour`,`unit`);--> statement-breakpoint
CREATE TABLE `rollup_page_day` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`path` text NOT NULL,
	`visitors` integer DEFAULT 0 NOT NULL,
	`pageviews` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `day`, `path`)
);
--> statement-breakpoint
CREATE INDEX `rollup_page_day_by_size` ON `rollup_page_day` (`site_id`,`day`,`visitors`,`pageviews`,`path`);--> statement-breakpoint
CREATE TABLE `rollup_page_day_units` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`path` text NOT NULL,
	`unit` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rollup_page_day_units_key` ON `rollup_page_day_units` (`site_id`,`day`,`path`,`unit`);--> statement-breakpoint
CREATE TABLE `rollup_session_goals` (
	`site_id` text NOT NULL,
	`session_id` text NOT NULL,
	`goal_id` text NOT NULL,
	`first_ts` integer NOT NULL,
	PRIMARY KEY(`site_id`, `session_id`, `goal_id`)
);
--> statement-breakpoint
CREATE INDEX `rollup_session_goals_firsts` ON `rollup_session_goals` (`site_id`,`session_id`,`goal_id`,`first_ts`);--> statement-breakpoint
CREATE TABLE `rollup_site_day` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`visitors` integer DEFAULT 0 NOT NULL,
	`pageviews` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `day`)
);
--> statement-breakpoint
CREATE TABLE `rollup_site_day_units` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`unit` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rollup_site_day_units_key` ON `rollup_site_day_units` (`site_id`,`day`,`unit`);--> statement-breakpoint
CREATE TABLE `rollup_site_hour` (
	`site_id` text NOT NULL,
	`hour` integer NOT NULL,
	`day` text NOT NULL,
	`visitors` integer DEFAULT 0 NOT NULL,
	`pageviews` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `hour`)
);
--> statement-breakpoint
CREATE INDEX `rollup_site_hour_day` ON `rollup_site_hour` (`site_id`,`day`);--> statement-breakpoint
CREATE TABLE `rollup_site_hour_units` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`site_id` text NOT NULL,
	`hour` integer NOT NULL,
	`unit` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rollup_site_hour_units_key` ON `rollup_site_hour_units` (`site_id`,`hour`,`unit`);--> statement-breakpoint
CREATE TABLE `rollup_vital_day` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`path` text NOT NULL,
	`metric` text NOT NULL,
	`units` integer DEFAULT 0 NOT NULL,
	`samples` integer DEFAULT 0 NOT NULL,
	`good` integer DEFAULT 0 NOT NULL,
	`needs_improvement` integer DEFAULT 0 NOT NULL,
	`poor` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `day`, `path`, `metric`)
);
--> statement-breakpoint
CREATE TABLE `rollup_vital_day_units` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`path` text NOT NULL,
	`metric` text NOT NULL,
	`unit` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rollup_vital_day_units_key` ON `rollup_vital_day_units` (`site_id`,`day`,`path`,`metric`,`unit`);--> statement-breakpoint
CREATE TABLE `rollup_vital_histogram` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`path` text NOT NULL,
	`metric` text NOT NULL,
	`bucket` integer NOT NULL,
	`samples` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `path`, `metric`, `day`, `bucket`)
);
--> statement-breakpoint
CREATE TABLE `rollup_watermarks` (
	`source` text PRIMARY KEY NOT NULL,
	`last_id` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE `sites` ADD `timezone` text DEFAULT 'UTC' NOT NULL;