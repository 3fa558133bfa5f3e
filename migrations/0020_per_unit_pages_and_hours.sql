ALTER TABLE `rollup_site_hour_units` ADD `pageviews` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `vitals_site_session_ts` ON `vitals` (`site_id`,`session_id`,`ts`);--> statement-breakpoint
CREATE INDEX `rollup_page_day_units_by_unit` ON `rollup_page_day_units` (`site_id`,`day`,`unit`,`path`,`pageviews`);--> statement-breakpoint
-- Backfill (docs/operations.md, upgrade notes): each unit's pageviews in the hour, from the raw
-- rows (kept as long as the hour units: both go at raw retention). A unit is a session, or a
-- sessionless event ("e:" and its row id).
UPDATE `rollup_site_hour_units` SET `pageviews` = CASE WHEN substr(`unit`, 1, 2) = 'e:' THEN (SELECT count(*) FROM `events` WHERE `id` = CAST(substr(`unit`, 3) AS INTEGER) AND `kind` = 'pageview') ELSE (SELECT count(*) FROM `events` e WHERE e.`site_id` = `rollup_site_hour_units`.`site_id` AND e.`session_id` = `rollup_site_hour_units`.`unit` AND e.`kind` = 'pageview' AND e.`ts` >= `rollup_site_hour_units`.`hour` AND e.`ts` < `rollup_site_hour_units`.`hour` + 3600000) END;
