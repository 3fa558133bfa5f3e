CREATE TABLE `alert_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`goal_id` text NOT NULL,
	`window_hours` integer DEFAULT 24 NOT NULL,
	`min_count` integer DEFAULT 1 NOT NULL,
	`state` text DEFAULT 'ok' NOT NULL,
	`last_evaluated_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`goal_id`) REFERENCES `goals`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_rules_site` ON `alert_rules` (`site_id`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`prefix` text NOT NULL,
	`secret_hash` text NOT NULL,
	`scopes` text NOT NULL,
	`sites` text,
	`rate_requests` integer,
	`rate_per_seconds` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_secret_hash` ON `api_keys` (`secret_hash`);--> statement-breakpoint
CREATE TABLE `conversions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`site_id` text NOT NULL,
	`goal_id` text NOT NULL,
	`session_id` text,
	`value` real,
	`source` text NOT NULL,
	`event_key` text,
	`ts` integer NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`goal_id`) REFERENCES `goals`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `conversions_site_goal_ts` ON `conversions` (`site_id`,`goal_id`,`ts`);--> statement-breakpoint
CREATE UNIQUE INDEX `conversions_site_event_key` ON `conversions` (`site_id`,`event_key`);--> statement-breakpoint
CREATE TABLE `deployments` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`version` text NOT NULL,
	`description` text,
	`url` text,
	`ts` integer NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `deployments_site_ts` ON `deployments` (`site_id`,`ts`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`site_id` text NOT NULL,
	`session_id` text,
	`kind` text NOT NULL,
	`name` text,
	`path` text NOT NULL,
	`referrer` text,
	`value` real,
	`seconds` integer,
	`scroll_depth` integer,
	`ts` integer NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `events_site_ts` ON `events` (`site_id`,`ts`);--> statement-breakpoint
CREATE INDEX `events_site_path_ts` ON `events` (`site_id`,`path`,`ts`);--> statement-breakpoint
CREATE TABLE `goals` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`match` text NOT NULL,
	`threshold` integer DEFAULT 0 NOT NULL,
	`purpose` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `goals_site_kind_match_threshold` ON `goals` (`site_id`,`kind`,`match`,`threshold`);--> statement-breakpoint
CREATE TABLE `key_usage` (
	`key_id` text NOT NULL,
	`day` text NOT NULL,
	`route` text NOT NULL,
	`calls` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`key_id`, `day`, `route`),
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	`entry_path` text,
	`pageviews` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_site_last_seen` ON `sessions` (`site_id`,`last_seen`);--> statement-breakpoint
CREATE TABLE `site_beacons` (
	`site_id` text NOT NULL,
	`origin` text NOT NULL,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	`last_page` text NOT NULL,
	PRIMARY KEY(`site_id`, `origin`),
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `sites` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`domain` text NOT NULL,
	`allowlist` text NOT NULL,
	`token_version` integer DEFAULT 1 NOT NULL,
	`created_by_key` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sites_domain_unique` ON `sites` (`domain`);--> statement-breakpoint
CREATE TABLE `vitals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`site_id` text NOT NULL,
	`session_id` text,
	`path` text NOT NULL,
	`metric` text NOT NULL,
	`value` real NOT NULL,
	`ts` integer NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `vitals_site_path_ts` ON `vitals` (`site_id`,`path`,`ts`);