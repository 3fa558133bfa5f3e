/**
 * The database schema, declared once with drizzle-orm and split by concern. drizzle-kit turns
 * it into the SQL migrations in `migrations/`; the workers and the CLI query through it.
 *
 * Portability: every column type and statement must run unchanged on the embedded server,
 * sqld and Turso (they are all libSQL), so only plain SQLite features are used.
 */
export * from "./core";
export * from "./ingest";
export * from "./operations";
export * from "./rollups";
export * from "./dimension-pairs";
export * from "./engagement";
export * from "./props";
export * from "./revenue";
export * from "./people";
export * from "./audit";
export * from "./oidc";
export * from "./shares";
export * from "./mail";
export * from "./imports";
