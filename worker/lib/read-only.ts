/**
 * The database as readers get it: statements run in a read-only transaction (libSQL's
 * `BEGIN TRANSACTION READONLY`, which the engine enforces), and the type has no way to
 * write. Reports receive only this, so the read path cannot take the write lock.
 */
import type { Client, InStatement, ResultSet } from "@libsql/client/web";

export interface ReadOnlyDatabase {
  /** One statement, read-only. */
  query(statement: InStatement): Promise<ResultSet>;
  /** Several statements in one read-only transaction: they see the same snapshot. */
  queryAll(statements: InStatement[]): Promise<ResultSet[]>;
}

export function readOnly(client: Client): ReadOnlyDatabase {
  return {
    query: async (statement) => (await client.batch([statement], "read"))[0]!,
    queryAll: (statements) => client.batch(statements, "read"),
  };
}
