CREATE TABLE `alert_delivery_attempts` (
	`outbox_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`at` integer NOT NULL,
	`status` integer,
	`error` text,
	`duration_ms` integer NOT NULL,
	PRIMARY KEY(`outbox_id`, `attempt`)
);
--> statement-breakpoint
CREATE TABLE `alert_destinations` (
	`id` text PRIMARY KEY NOT NULL,
	`rule_id` text NOT NULL,
	`position` integer NOT NULL,
	`url` text NOT NULL,
	`format` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alert_destinations_rule` ON `alert_destinations` (`rule_id`,`position`);--> statement-breakpoint
CREATE TABLE `alert_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`rule_id` text NOT NULL,
	`transition_id` text,
	`destination_id` text NOT NULL,
	`type` text NOT NULL,
	`payload` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`claimed_by` text,
	`claimed_until` integer,
	`delivered_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alert_outbox_due` ON `alert_outbox` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `alert_outbox_rule` ON `alert_outbox` (`rule_id`);--> statement-breakpoint
CREATE INDEX `alert_outbox_claim` ON `alert_outbox` (`claimed_by`);--> statement-breakpoint
CREATE TABLE `alert_transitions` (
	`id` text PRIMARY KEY NOT NULL,
	`rule_id` text NOT NULL,
	`seq` integer NOT NULL,
	`at` integer NOT NULL,
	`from_state` text NOT NULL,
	`to_state` text NOT NULL,
	`value` integer,
	`qualifier` text NOT NULL,
	`window_start` integer NOT NULL,
	`window_end` integer NOT NULL,
	`deployment_id` text
);
--> statement-breakpoint
CREATE INDEX `alert_transitions_rule` ON `alert_transitions` (`rule_id`,`seq`);--> statement-breakpoint
CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
-- alert_rules is rebuilt: the earlier table was a placeholder that no route wrote, so nothing
-- is carried over.
CREATE TABLE `__new_alert_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`site_id` text NOT NULL,
	`kind` text NOT NULL,
	`metric` text,
	`goal_id` text,
	`condition` text,
	`threshold` integer,
	`window_hours` integer,
	`for_minutes` integer DEFAULT 0 NOT NULL,
	`within_minutes` integer,
	`enabled` integer DEFAULT true NOT NULL,
	`state` text DEFAULT 'ok' NOT NULL,
	`seq` integer DEFAULT 0 NOT NULL,
	`state_since` integer NOT NULL,
	`pending_since` integer,
	`last_value` integer,
	`last_qualifier` text,
	`evaluated_at` integer,
	`deployment_id` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`goal_id`) REFERENCES `goals`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP TABLE `alert_rules`;--> statement-breakpoint
ALTER TABLE `__new_alert_rules` RENAME TO `alert_rules`;--> statement-breakpoint
CREATE INDEX `alert_rules_site` ON `alert_rules` (`site_id`);