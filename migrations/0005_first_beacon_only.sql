ALTER TABLE `site_beacons` DROP COLUMN `last_seen`;--> statement-breakpoint
ALTER TABLE `site_beacons` DROP COLUMN `last_page`;