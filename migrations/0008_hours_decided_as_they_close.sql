ALTER TABLE `rollup_publication` ADD `hour_rule_from` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hours are now decided as they close (reports/privacy.ts closingHours). What was published
-- before this migration — whole days that had ended — keeps the rule it was published under.
UPDATE `rollup_publication` SET `hour_rule_from` = `through_ms`;
