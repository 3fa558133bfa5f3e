/**
 * The import runner (run.ts) on a request's database, for the API's routes: they do no
 * database work of their own. A malformed file becomes the 422 a client can act on (the file
 * and line in `detail`), thrown before anything was written.
 */
import type { Database } from "../../lib/db";
import { HttpProblem } from "../../lib/problem";
import { MalformedImport } from "./model";
import { listImports, removeImport, runImport, type ImportSummary, type RunImportInput } from "./run";

export async function importFile(db: Database, input: RunImportInput): Promise<ImportSummary> {
  try {
    return await runImport(db.$client, input);
  } catch (error) {
    if (error instanceof MalformedImport) {
      // A sentence a person reads under the file control, as it is: "Line 4 of export.csv: …".
      throw new HttpProblem(422, `Line ${error.line} of ${error.file}: ${error.reason}`, { field: "body" });
    }
    throw error;
  }
}

export function siteImports(db: Database, siteId: string): Promise<ImportSummary[]> {
  return listImports(db.$client, siteId);
}

/** Removes an import and the days it still owns: 404 naming `import_id` when the site has no such import. */
export async function removeSiteImport(db: Database, siteId: string, importId: string): Promise<void> {
  if (!(await removeImport(db.$client, siteId, importId))) {
    throw new HttpProblem(404, `No import ${importId} on site ${siteId}.`, { field: "import_id" });
  }
}
