/**
 * The URL browsers reach Wren at, for snippets: always from configuration (WREN_PUBLIC_URL,
 * which `wren start` sets from the listening address when the operator does not), never from
 * the request. A request's Host header is the client's to choose, so a snippet built from it
 * would load the tracker from wherever the caller liked.
 */
export const DEFAULT_PUBLIC_URL = "http://127.0.0.1:8787";

export function publicUrl(env: { WREN_PUBLIC_URL?: string | null }): string {
  return (env.WREN_PUBLIC_URL || DEFAULT_PUBLIC_URL).replace(/\/+$/, "");
}
