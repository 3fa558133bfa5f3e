/**
 * Site domains are bare hostnames: IDNA-normalised (punycode) and lower-cased by the URL
 * parser that both workerd and Node ship, so "Bücher.Example" and "xn--bcher-kva.example"
 * are the same site, and without the trailing dot of a fully qualified name ("example.com."
 * is example.com, as the collector's origin check takes it). A scheme, path, port, wildcard
 * or anything else is refused.
 */
export type HostnameResult = { ok: true; hostname: string } | { ok: false; reason: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export function normalizeHostname(input: string): HostnameResult {
  // One trailing dot (a fully qualified name) is the same host; a second is an empty label.
  const raw = input.trim().replace(/\.$/, "");
  if (raw.length === 0) return { ok: false, reason: "must not be empty" };
  if (raw.length > 253) return { ok: false, reason: "must be at most 253 characters" };
  if (raw.includes("*")) return { ok: false, reason: "must not contain a wildcard" };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) return { ok: false, reason: "must be a hostname, without a scheme" };
  if (/[/?#@\\\s]/.test(raw)) return { ok: false, reason: "must be a hostname, without a path, query or credentials" };
  if (/:\d*$/.test(raw) || raw.includes(":")) return { ok: false, reason: "must be a hostname, without a port" };
  let hostname: string;
  try {
    hostname = new URL(`http://${raw}`).hostname;
  } catch {
    return { ok: false, reason: "is not a valid hostname" };
  }
  const labels = hostname.split(".");
  if (!labels.every((label) => LABEL.test(label))) return { ok: false, reason: "is not a valid hostname" };
  if (/^\d+$/.test(labels[labels.length - 1] ?? "")) return { ok: false, reason: "must be a hostname, not an IP address" };
  return { ok: true, hostname };
}
