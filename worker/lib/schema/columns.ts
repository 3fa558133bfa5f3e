/** Column helpers the schema files share. */
import { sql } from "drizzle-orm";
import { integer } from "drizzle-orm/sqlite-core";

/** Row creation time in ms, filled in by the database when the insert leaves it out. */
export const createdAt = () =>
  integer("created_at", { mode: "number" })
    .notNull()
    .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`);
