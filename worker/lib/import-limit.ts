/**
 * The bound on an import upload (`POST /api/v1/sites/{id}/imports`): WREN_IMPORT_MAX_MB
 * megabytes, 25 by default. Both workers read it: the front door (collector) refuses a
 * declared length above it before forwarding, and the api counts the body as it streams in, so
 * no more than the bound is ever held. Every other route keeps its own small JSON bound.
 */
/**
 * 25 by default: an export is read whole in the api's memory, at its peak about 20 times its
 * CSV text (bench imports); a larger one is for `wren import` on the server, or a raised limit.
 */
export const DEFAULT_IMPORT_MAX_MB = 25;
/** The most an operator may allow: an export is read whole in the api's memory. */
export const MAX_IMPORT_MAX_MB = 1024;

/** The upload's path, as the front door sees it (the api's router matches it for itself). */
export const IMPORT_UPLOAD_PATH = /^\/api\/v1\/sites\/[^/]+\/imports\/?$/;

/**
 * The bound in bytes. `wren start` refuses a setting that is no whole number from 1 to
 * MAX_IMPORT_MAX_MB; here anything else (unset, or a worker run without the CLI) is the default.
 */
export function importMaxBytes(setting: string | null | undefined): number {
  const mb = Number(setting?.trim() || NaN);
  const valid = Number.isInteger(mb) && mb >= 1 && mb <= MAX_IMPORT_MAX_MB;
  return (valid ? mb : DEFAULT_IMPORT_MAX_MB) * 1024 * 1024;
}
