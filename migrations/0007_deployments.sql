CREATE TABLE `smoke_conversions` (
	`conversion_id` integer PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`goal_id` text NOT NULL,
	`external_id` text,
	`attached` integer NOT NULL,
	`ts` integer NOT NULL,
	FOREIGN KEY (`conversion_id`) REFERENCES `conversions`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`goal_id`) REFERENCES `goals`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `smoke_conversions_site_ts` ON `smoke_conversions` (`site_id`,`ts`);--> statement-breakpoint
CREATE INDEX `smoke_conversions_site_external_id` ON `smoke_conversions` (`site_id`,`external_id`);--> statement-breakpoint
ALTER TABLE `sites` ADD `deployment_hook_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- deployments gains environment, external_id (NOT NULL, unique per site), webhook_id, source
-- and created_at: SQLite cannot ADD a NOT NULL column without a default, or one whose default
-- is an expression, so the table is rebuilt (it held no rows before this release; any row is
-- kept, with its id as its idempotency key).
CREATE TABLE `__new_deployments` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`version` text NOT NULL,
	`environment` text DEFAULT 'production' NOT NULL,
	`external_id` text NOT NULL,
	`webhook_id` text,
	`description` text,
	`url` text,
	`source` text DEFAULT 'api' NOT NULL,
	`ts` integer NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_deployments` (`id`, `site_id`, `version`, `environment`, `external_id`, `description`, `url`, `source`, `ts`, `created_at`)
SELECT `id`, `site_id`, `version`, 'production', `id`, `description`, `url`, 'api', `ts`, `ts` FROM `deployments`;--> statement-breakpoint
DROP TABLE `deployments`;--> statement-breakpoint
ALTER TABLE `__new_deployments` RENAME TO `deployments`;--> statement-breakpoint
CREATE INDEX `deployments_site_ts` ON `deployments` (`site_id`,`ts`);--> statement-breakpoint
CREATE UNIQUE INDEX `deployments_site_external_id` ON `deployments` (`site_id`,`external_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `deployments_site_webhook_id` ON `deployments` (`site_id`,`webhook_id`);
