/**
 * An export uploaded through the running service (`POST /api/v1/sites/{id}/imports`, docs/api.md),
 * for bench/imports.ts: a `wren start` stack on loopback, a site made through the API, then the
 * file sent as one request, timed end to end (the front door's bounded read, the api worker's
 * reader and writes over the embedded libSQL server), with the api workerd process's peak
 * resident memory (its VmHWM, reset before the upload) above where it stood.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { ImportSource } from "../worker/domain/imports/model";
import { startStack, type Stack } from "../test/helpers/stack";
import type { GeneratedExport } from "./import-exports";
import { processOf } from "./memory";
import { inScratchFolder } from "./scratch";

export interface ApiUpload {
  source: ImportSource;
  label: string;
  fileMB: number;
  status: number;
  s: number;
  daysImported: number;
  /** The api workerd process's peak resident memory above its size before the upload, MB. */
  apiPeakMB: number;
  /** Set when the upload was not a 201: the answer and the error the service logged. */
  failure?: string;
}

/** The last error line of the stack's output, or a note that there is none. */
function lastError(output: string): string {
  return (
    output
      .split("\n")
      .filter((line) => /error/i.test(line))
      .pop()
      ?.trim() ?? "(nothing)"
  );
}

const CONTENT_TYPES: Record<ImportSource, string> = { plausible: "application/zip", umami: "text/csv", goatcounter: "text/csv" };

/** The api process's resident memory now and at its peak, in MB (Linux /proc). */
function apiMemory(stack: Stack): { now: number; peak: number; pid: number } {
  const api = processOf(stack, "api");
  if (!api) throw new Error("no api workerd process under the stack");
  const status = readFileSync(`/proc/${api.pid}/status`, "utf8");
  const mb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { now: mb("VmRSS"), peak: mb("VmHWM"), pid: api.pid };
}

async function call(
  stack: Stack,
  method: string,
  path: string,
  body: string | Uint8Array<ArrayBuffer>,
  type: string,
): Promise<Response> {
  return fetch(`${stack.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${stack.adminKey}`, "content-type": type },
    body,
  });
}

export async function uploadThroughApi(
  exports: { source: ImportSource; label: string; make: () => GeneratedExport }[],
  timeZone: string,
): Promise<ApiUpload[]> {
  return inScratchFolder("imports-api", async (dir) => {
    // The bound raised to the CLI's (1 GiB): the bench's files are near the 100 MB default.
    const stack = await startStack({ dataDir: dir, env: { WREN_IMPORT_MAX_MB: "1024" }, timeoutMs: 120_000 });
    try {
      const out: ApiUpload[] = [];
      for (const { source, label, make } of exports) {
        const site = await call(
          stack,
          "POST",
          "/api/v1/sites",
          JSON.stringify({ name: `bench ${source}`, domain: `bench-${source}.example`, timezone: timeZone }),
          "application/json",
        );
        if (site.status !== 201 && site.status !== 200) throw new Error(`creating the site: ${site.status} ${await site.text()}`);
        const { id } = (await site.json()) as { id: string };
        const file = make();
        const before = apiMemory(stack);
        // Writing 5 to clear_refs resets the process's peak (VmHWM) to its present resident size.
        writeFileSync(`/proc/${before.pid}/clear_refs`, "5");
        const started = performance.now();
        const answer = await call(
          stack,
          "POST",
          `/api/v1/sites/${id}/imports?from=${source}&name=${file.fileName}`,
          file.bytes as Uint8Array<ArrayBuffer>,
          CONTENT_TYPES[source],
        );
        const text = await answer.text();
        const s = (performance.now() - started) / 1000;
        const failed = answer.status !== 201;
        out.push({
          source,
          label,
          fileMB: file.bytes.length / 1024 / 1024,
          status: answer.status,
          s,
          daysImported: failed ? 0 : (JSON.parse(text) as { import: { days_imported: number } }).import.days_imported,
          apiPeakMB: apiMemory(stack).peak - before.now,
          // What the service logged about it: the answer of a 5xx says nothing, by design.
          ...(failed ? { failure: `${text.slice(0, 200)}; logged: ${lastError(stack.output())}` } : {}),
        });
      }
      return out;
    } finally {
      await stack.stop();
    }
  });
}
