CREATE TABLE `session_salts` (
	`id` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `session_salts_created_at` ON `session_salts` (`created_at`);--> statement-breakpoint
CREATE TABLE `instances` (
	`id` text PRIMARY KEY NOT NULL,
	`seen_at` integer NOT NULL
);
