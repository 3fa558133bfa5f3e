CREATE TABLE `deployment_hook_receipts` (
	`site_id` text NOT NULL,
	`key` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`site_id`, `key`),
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `deployment_hook_receipts_created_at` ON `deployment_hook_receipts` (`created_at`);--> statement-breakpoint
INSERT OR IGNORE INTO `deployment_hook_receipts` (`site_id`, `key`, `created_at`) SELECT `site_id`, `external_id`, `created_at` FROM `deployments` WHERE `source` = 'github';--> statement-breakpoint
INSERT OR IGNORE INTO `deployment_hook_receipts` (`site_id`, `key`, `created_at`) SELECT `site_id`, 'webhook-id:' || `webhook_id`, `created_at` FROM `deployments` WHERE `webhook_id` IS NOT NULL;
