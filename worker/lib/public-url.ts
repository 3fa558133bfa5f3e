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

/**
 * The URL people sign in at: the public URL, with a loopback IP address spelled `localhost`.
 * Browsers refuse an IP address as a passkey's relying party id, and `localhost` is a secure
 * context as 127.0.0.1 is, so Wren on its loopback defaults takes passkeys at
 * http://localhost:PORT. Any other host is kept as it is.
 */
export function peopleUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname !== "127.0.0.1" && parsed.hostname !== "[::1]") return url.replace(/\/+$/, "");
  parsed.hostname = "localhost";
  return parsed.toString().replace(/\/+$/, "");
}
