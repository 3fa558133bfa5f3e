CREATE INDEX `conversions_keyed_ts` ON `conversions` (`ts`) WHERE event_key IS NOT NULL;--> statement-breakpoint
UPDATE `conversions` SET `event_key` = NULL WHERE `event_key` LIKE 'id:%';
