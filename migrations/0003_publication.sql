CREATE TABLE `rollup_publication` (
	`id` integer PRIMARY KEY NOT NULL,
	`through_ms` integer NOT NULL,
	`published_at` integer NOT NULL,
	`version` integer DEFAULT 0 NOT NULL
);
