CREATE TABLE `share_links` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`token_prefix` text NOT NULL,
	`password_hash` text,
	`expires_at` integer,
	`embed_origin` text,
	`created_by` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `share_links_token_hash` ON `share_links` (`token_hash`);--> statement-breakpoint
CREATE INDEX `share_links_site` ON `share_links` (`site_id`);