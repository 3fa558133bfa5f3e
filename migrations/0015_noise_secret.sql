ALTER TABLE `rollup_cell_key` ADD `position_secret` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `rollup_cell_key` SET `position_secret` = abs(random()) % 2147483646 + 1 WHERE `id` = 1;
