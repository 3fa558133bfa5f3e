CREATE TABLE `rollup_cell_key` (
	`id` integer PRIMARY KEY NOT NULL,
	`secret` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `rollup_goal_day` ADD `key_sum` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_goal_hour` ADD `key_sum` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_page_day` ADD `key_sum` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_site_day` ADD `key_sum` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_site_hour` ADD `key_sum` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `rollup_vital_day` ADD `key_sum` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
INSERT INTO `rollup_cell_key` (`id`, `secret`) VALUES (1, abs(random()) % 2147483645 + 1);
--> statement-breakpoint
UPDATE `rollup_site_day` SET `key_sum` = coalesce((SELECT sum(((((CASE WHEN substr(u.unit, 2, 1) = ':' THEN CAST(substr(u.unit, 3) AS INTEGER) ELSE coalesce(unicode(substr(u.unit, 1, 1)), 0) + 128 * coalesce(unicode(substr(u.unit, 2, 1)), 0) + 16384 * coalesce(unicode(substr(u.unit, 3, 1)), 0) + 2097152 * coalesce(unicode(substr(u.unit, 4, 1)), 0) END) % 2147483647) * (SELECT secret FROM rollup_cell_key WHERE id = 1)) % 2147483647 % 65536)) FROM `rollup_site_day_units` u WHERE u.site_id = rollup_site_day.site_id AND u.day = rollup_site_day.day), 0);
--> statement-breakpoint
UPDATE `rollup_site_hour` SET `key_sum` = coalesce((SELECT sum(((((CASE WHEN substr(u.unit, 2, 1) = ':' THEN CAST(substr(u.unit, 3) AS INTEGER) ELSE coalesce(unicode(substr(u.unit, 1, 1)), 0) + 128 * coalesce(unicode(substr(u.unit, 2, 1)), 0) + 16384 * coalesce(unicode(substr(u.unit, 3, 1)), 0) + 2097152 * coalesce(unicode(substr(u.unit, 4, 1)), 0) END) % 2147483647) * (SELECT secret FROM rollup_cell_key WHERE id = 1)) % 2147483647 % 65536)) FROM `rollup_site_hour_units` u WHERE u.site_id = rollup_site_hour.site_id AND u.hour = rollup_site_hour.hour), 0);
--> statement-breakpoint
UPDATE `rollup_page_day` SET `key_sum` = coalesce((SELECT sum(((((CASE WHEN substr(u.unit, 2, 1) = ':' THEN CAST(substr(u.unit, 3) AS INTEGER) ELSE coalesce(unicode(substr(u.unit, 1, 1)), 0) + 128 * coalesce(unicode(substr(u.unit, 2, 1)), 0) + 16384 * coalesce(unicode(substr(u.unit, 3, 1)), 0) + 2097152 * coalesce(unicode(substr(u.unit, 4, 1)), 0) END) % 2147483647) * (SELECT secret FROM rollup_cell_key WHERE id = 1)) % 2147483647 % 65536)) FROM `rollup_page_day_units` u WHERE u.site_id = rollup_page_day.site_id AND u.day = rollup_page_day.day AND u.path = rollup_page_day.path), 0);
--> statement-breakpoint
UPDATE `rollup_goal_day` SET `key_sum` = coalesce((SELECT sum(((((CASE WHEN substr(u.unit, 2, 1) = ':' THEN CAST(substr(u.unit, 3) AS INTEGER) ELSE coalesce(unicode(substr(u.unit, 1, 1)), 0) + 128 * coalesce(unicode(substr(u.unit, 2, 1)), 0) + 16384 * coalesce(unicode(substr(u.unit, 3, 1)), 0) + 2097152 * coalesce(unicode(substr(u.unit, 4, 1)), 0) END) % 2147483647) * (SELECT secret FROM rollup_cell_key WHERE id = 1)) % 2147483647 % 65536)) FROM `rollup_goal_day_units` u WHERE u.site_id = rollup_goal_day.site_id AND u.goal_id = rollup_goal_day.goal_id AND u.day = rollup_goal_day.day), 0);
--> statement-breakpoint
UPDATE `rollup_goal_hour` SET `key_sum` = coalesce((SELECT sum(((((CASE WHEN substr(u.unit, 2, 1) = ':' THEN CAST(substr(u.unit, 3) AS INTEGER) ELSE coalesce(unicode(substr(u.unit, 1, 1)), 0) + 128 * coalesce(unicode(substr(u.unit, 2, 1)), 0) + 16384 * coalesce(unicode(substr(u.unit, 3, 1)), 0) + 2097152 * coalesce(unicode(substr(u.unit, 4, 1)), 0) END) % 2147483647) * (SELECT secret FROM rollup_cell_key WHERE id = 1)) % 2147483647 % 65536)) FROM `rollup_goal_hour_units` u WHERE u.site_id = rollup_goal_hour.site_id AND u.goal_id = rollup_goal_hour.goal_id AND u.hour = rollup_goal_hour.hour), 0);
--> statement-breakpoint
UPDATE `rollup_vital_day` SET `key_sum` = coalesce((SELECT sum(((((CASE WHEN substr(u.unit, 2, 1) = ':' THEN CAST(substr(u.unit, 3) AS INTEGER) ELSE coalesce(unicode(substr(u.unit, 1, 1)), 0) + 128 * coalesce(unicode(substr(u.unit, 2, 1)), 0) + 16384 * coalesce(unicode(substr(u.unit, 3, 1)), 0) + 2097152 * coalesce(unicode(substr(u.unit, 4, 1)), 0) END) % 2147483647) * (SELECT secret FROM rollup_cell_key WHERE id = 1)) % 2147483647 % 65536)) FROM `rollup_vital_day_units` u WHERE u.site_id = rollup_vital_day.site_id AND u.day = rollup_vital_day.day AND u.path = rollup_vital_day.path AND u.metric = rollup_vital_day.metric), 0);
