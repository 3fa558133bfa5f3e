CREATE TABLE `rollup_dimension_pair_day` (
	`site_id` text NOT NULL,
	`day` text NOT NULL,
	`parent_dimension` text NOT NULL,
	`parent_value` text NOT NULL,
	`child_dimension` text NOT NULL,
	`child_value` text NOT NULL,
	`units` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`site_id`, `parent_dimension`, `child_dimension`, `day`, `parent_value`, `child_value`)
);
