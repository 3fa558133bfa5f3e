/**
 * Where alert notifications may go. workerd's network service for the sender refuses, at the
 * socket, every address outside its `allow` list (`public`, plus WREN_WEBHOOK_ALLOW), DNS
 * rebinding included: that is the guard. This module is the same policy as a check up front,
 * so that a rule naming a refused address is a 422 naming `url` when it is made, not a
 * delivery that fails for a day and a half; the CLI also turns the allow list into workerd's.
 *
 * WREN_WEBHOOK_ALLOW: comma-separated entries, each a host name, an IP address, a CIDR block
 * or `private` (every private, loopback, link-local and unique-local address). Host names are
 * resolved by `wren start` into workerd's list; here they also permit plain `http:`.
 */
import ipaddr from "ipaddr.js";

export interface WebhookAllow {
  /** `private`: every non-public address is allowed. */
  private: boolean;
  /** Allowed blocks (an address is a block of one). */
  blocks: { text: string; range: [ipaddr.IPv4 | ipaddr.IPv6, number] }[];
  /** Allowed host names, lower case. */
  hosts: Set<string>;
}

/** An entry of WREN_WEBHOOK_ALLOW that is none of the three kinds. */
export class WebhookAllowError extends Error {}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Parses WREN_WEBHOOK_ALLOW; throws WebhookAllowError naming the first bad entry. */
export function parseWebhookAllow(text: string | null | undefined): WebhookAllow {
  const allow: WebhookAllow = { private: false, blocks: [], hosts: new Set() };
  for (const raw of (text ?? "").split(",")) {
    const entry = raw.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
    if (entry === "") continue;
    if (entry === "private") allow.private = true;
    else if (entry.includes("/")) {
      try {
        allow.blocks.push({ text: entry, range: ipaddr.parseCIDR(entry) });
      } catch {
        throw new WebhookAllowError(`"${raw.trim()}" is not a CIDR block`);
      }
    } else if (ipaddr.isValid(entry)) {
      const address = ipaddr.parse(entry);
      allow.blocks.push({ text: entry, range: [address, address.kind() === "ipv4" ? 32 : 128] });
    } else if (HOST_NAME.test(entry)) allow.hosts.add(entry);
    else throw new WebhookAllowError(`"${raw.trim()}" is not a host name, an IP address, a CIDR block or "private"`);
  }
  return allow;
}

/** An address as one kind (IPv4-mapped IPv6 addresses are their IPv4 address). */
function normalized(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/** workerd's `public`: globally routable unicast, nothing private, local, reserved or special. */
export function isPublicAddress(text: string): boolean {
  const address = normalized(ipaddr.parse(text));
  return address.range() === "unicast";
}

function inBlocks(allow: WebhookAllow, text: string): boolean {
  const address = ipaddr.parse(text);
  const asIPv4 = normalized(address);
  return allow.blocks.some(({ range }) => {
    const candidate = range[0].kind() === "ipv4" ? asIPv4 : address;
    return candidate.kind() === range[0].kind() && candidate.match(range as never);
  });
}

/** Names that resolve to this machine or a private network wherever they are looked up. */
function isLocalName(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal") || !host.includes(".");
}

/**
 * Why `url` may not be a destination under `allow`, or null when it may. The message names
 * what is wrong; the caller puts it under the field `url`.
 */
export function destinationProblem(url: string, allow: WebhookAllow): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute https:// URL";
  }
  if (parsed.username || parsed.password) return "must not carry credentials (user:password@)";
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "must be an https:// URL";
  const host = parsed.hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  const literal = ipaddr.isValid(host) ? host : null;
  const allowedExplicitly = literal ? inBlocks(allow, literal) : allow.hosts.has(host);
  if (parsed.protocol === "http:" && !allowedExplicitly)
    return "must be an https:// URL (plain http:// only for a host WREN_WEBHOOK_ALLOW names)";
  if (allowedExplicitly) return null;
  if (literal) {
    if (isPublicAddress(literal) || (allow.private && !isPublicAddress(literal) && !isUnspecified(literal))) return null;
    return `names ${literal}, which is not a public address (WREN_WEBHOOK_ALLOW may allow it)`;
  }
  if (isLocalName(host) && !allow.private) return `names ${host}, a local host name (WREN_WEBHOOK_ALLOW may allow it)`;
  return null;
}

function isUnspecified(text: string): boolean {
  return normalized(ipaddr.parse(text)).range() === "unspecified";
}

/**
 * workerd's `allow` list for the sender's network service: `public`, then `private` and the
 * CIDR blocks as they are; host names are resolved by the caller (`wren start`).
 */
export function workerdAllowList(allow: WebhookAllow, resolvedHosts: string[]): string[] {
  const list = ["public"];
  if (allow.private) list.push("private", "local");
  for (const { range } of allow.blocks) list.push(`${range[0].toString()}/${range[1]}`);
  for (const address of resolvedHosts) list.push(`${address}/${address.includes(":") ? 128 : 32}`);
  return [...new Set(list)];
}
