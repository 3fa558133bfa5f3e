CREATE TABLE `digest_schedules` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`frequency` text NOT NULL,
	`email_to` text,
	`destination_id` text,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_period_end` text
);
--> statement-breakpoint
CREATE INDEX `digest_schedules_site` ON `digest_schedules` (`site_id`);--> statement-breakpoint
CREATE TABLE `mail_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`to` text NOT NULL,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`html` text,
	`purpose` text NOT NULL,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`next_attempt_at` integer,
	`claimed_by` text,
	`claimed_until` integer
);
--> statement-breakpoint
CREATE INDEX `mail_outbox_due` ON `mail_outbox` (`next_attempt_at`);