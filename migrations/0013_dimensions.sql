CREATE TABLE `rollup_dimension_day` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`dimension` text NOT NULL,
	`value` text NOT NULL,
	`visitors` integer DEFAULT 0 NOT NULL,
	`pageviews` integer DEFAULT 0 NOT NULL,
	`key_sum` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `dimension`, `day`, `value`)
);
--> statement-breakpoint
CREATE TABLE `rollup_dimension_scratch` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`unit` text NOT NULL,
	`first_pageview_id` integer,
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
	PRIMARY KEY(`site_id`, `day`, `unit`)
);
--> statement-breakpoint
CREATE TABLE `rollup_goal_dimension_day` (
	`site_id` text NOT NULL,
	`goal_id` text NOT NULL,
	`day` text NOT NULL,
	`dimension` text NOT NULL,
	`value` text NOT NULL,
	`units` integer DEFAULT 0 NOT NULL,
	`conversions` integer DEFAULT 0 NOT NULL,
	`key_sum` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `dimension`, `day`, `goal_id`, `value`)
);
--> statement-breakpoint
CREATE TABLE `rollup_session_day` (
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
	PRIMARY KEY(`site_id`, `day`, `unit`)
);
--> statement-breakpoint
ALTER TABLE `events` ADD `source` text;--> statement-breakpoint
ALTER TABLE `events` ADD `utm_source` text;--> statement-breakpoint
ALTER TABLE `events` ADD `utm_medium` text;--> statement-breakpoint
ALTER TABLE `events` ADD `utm_campaign` text;--> statement-breakpoint
ALTER TABLE `events` ADD `utm_content` text;--> statement-breakpoint
ALTER TABLE `events` ADD `utm_term` text;--> statement-breakpoint
ALTER TABLE `events` ADD `browser` text;--> statement-breakpoint
ALTER TABLE `events` ADD `os` text;--> statement-breakpoint
ALTER TABLE `events` ADD `device` text;--> statement-breakpoint
ALTER TABLE `events` ADD `country` text;--> statement-breakpoint
ALTER TABLE `rollup_goal_day_units` ADD `conversions` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `rollup_goal_day_units_by_unit` ON `rollup_goal_day_units` (`site_id`,`day`,`unit`);