ALTER TABLE `rollup_goal_day` ADD `hour_rule` integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_goal_day` ADD `hour_remainder` integer;--> statement-breakpoint
ALTER TABLE `rollup_site_day` ADD `hour_rule` integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_site_day` ADD `hour_remainder` integer;--> statement-breakpoint
-- Every hour of k is now shown as it closes, and the day carries the protection
-- (reports/privacy/hours.ts). The days that exist now, ended or running, keep the rule they
-- were (or are being) published under: the day's first hour of k held back as its cover.
UPDATE `rollup_site_day` SET `hour_rule` = 2;--> statement-breakpoint
UPDATE `rollup_goal_day` SET `hour_rule` = 2;
