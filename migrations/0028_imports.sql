CREATE TABLE `imported_cells` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`dimension` text NOT NULL,
	`value` text NOT NULL,
	`visitors` integer DEFAULT 0 NOT NULL,
	`pageviews` integer DEFAULT 0 NOT NULL,
	`key_sum` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `dimension`, `day`, `value`),
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `imported_days` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`import_id` text NOT NULL,
	`visitors` integer DEFAULT 0 NOT NULL,
	`pageviews` integer DEFAULT 0 NOT NULL,
	`visits` integer DEFAULT 0 NOT NULL,
	`bounces` integer DEFAULT 0 NOT NULL,
	`visit_duration` integer DEFAULT 0 NOT NULL,
	`key_sum` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `day`),
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `imported_days_import` ON `imported_days` (`import_id`);--> statement-breakpoint
CREATE TABLE `imports` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`source` text NOT NULL,
	`file_name` text NOT NULL,
	`file_sha256` text NOT NULL,
	`status` text NOT NULL,
	`resume_after` text,
	`rows_read` integer DEFAULT 0 NOT NULL,
	`rows_refused` integer DEFAULT 0 NOT NULL,
	`days_imported` integer DEFAULT 0 NOT NULL,
	`first_day` text,
	`last_day` text,
	`refusals` text DEFAULT '{}' NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `imports_site_file` ON `imports` (`site_id`,`file_sha256`);--> statement-breakpoint
CREATE INDEX `imports_site` ON `imports` (`site_id`);