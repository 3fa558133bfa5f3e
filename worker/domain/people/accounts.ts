/** An account with its grants, as the session routes show it. */
import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "../../lib/db";
import { HttpProblem } from "../../lib/problem";
import { accountGrants, accounts } from "../../lib/schema";
import type { Grant } from "../access";

export interface AccountWithGrants {
  id: string;
  name: string;
  email: string | null;
  createdAt: number;
  grants: Grant[];
}

/** An active (not disabled) account; 401 when there is none, as for a session that ended. */
export async function findAccount(db: Database, id: string): Promise<AccountWithGrants> {
  const row = (
    await db
      .select()
      .from(accounts)
      .where(and(eq(accounts.id, id), isNull(accounts.disabledAt)))
  )[0];
  if (!row) throw new HttpProblem(401, "This person has no access any more.", { field: "cookie" });
  const grants = await db
    .select({ siteId: accountGrants.siteId, role: accountGrants.role })
    .from(accountGrants)
    .where(eq(accountGrants.accountId, id));
  return { id: row.id, name: row.name, email: row.email, createdAt: row.createdAt, grants };
}
