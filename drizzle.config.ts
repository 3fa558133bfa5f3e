import { defineConfig } from "drizzle-kit";

// drizzle-kit generates the SQL migrations from the schema: `npm run db:generate`.
export default defineConfig({
  dialect: "turso",
  schema: "./worker/lib/schema/index.ts",
  out: "./migrations",
});
