CREATE TABLE `revenue_drops` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`reason` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `day`, `reason`),
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `goals` ADD `currency` text;--> statement-breakpoint
ALTER TABLE `conversions` ADD `revenue` integer;--> statement-breakpoint
ALTER TABLE `conversions` ADD `currency` text;--> statement-breakpoint
ALTER TABLE `rollup_goal_day_units` ADD `revenue` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_goal_day_units` ADD `revenue_moved` real DEFAULT 0 NOT NULL;