/**
 * The visitor's IP address, for the country lookup only (it is never stored): where it comes
 * from, and how an address text is read (a port and brackets stripped, strictly validated).
 */
import ipaddr from "ipaddr.js";

/** Longer than any address with brackets, a zone and a port: not an address. */
const MAX_ADDRESS_TEXT = 64;

/**
 * The address in `text` — "1.2.3.4", "1.2.3.4:5678", "2001:db8::1", "[2001:db8::1]:443" —
 * or null when it is not one. IPv4 must be four decimal parts (no "127.1", no leading zeros);
 * an IPv6 zone ("fe80::1%eth0") is refused (only link-local addresses have one).
 */
export function parseAddress(text: string | null | undefined): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (typeof text !== "string") return null;
  let host = text.trim();
  if (host === "" || host.length > MAX_ADDRESS_TEXT || host.includes("%")) return null;
  if (host.startsWith("[")) {
    // "[v6]" or "[v6]:port".
    const end = host.indexOf("]");
    if (end < 0 || !/^(:\d{1,5})?$/.test(host.slice(end + 1))) return null;
    host = host.slice(1, end);
    if (!ipaddr.IPv6.isValid(host)) return null;
  } else if (!host.includes(":")) {
    // "v4"
    if (!ipaddr.IPv4.isValidFourPartDecimal(host)) return null;
  } else if (host.indexOf(":") === host.lastIndexOf(":")) {
    // "v4:port" (one colon: an IPv6 address has at least two).
    const [address = "", port = ""] = host.split(":");
    if (!/^\d{1,5}$/.test(port) || !ipaddr.IPv4.isValidFourPartDecimal(address)) return null;
    host = address;
  } else if (!ipaddr.IPv6.isValid(host)) return null;
  try {
    const address = ipaddr.parse(host);
    // An IPv4-mapped IPv6 address (::ffff:10.0.0.1, what a dual-stack socket reports for an
    // IPv4 client) is its IPv4 address.
    return address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()
      ? (address as ipaddr.IPv6).toIPv4Address()
      : address;
  } catch {
    return null;
  }
}

/**
 * Whether `address` is a public one: globally routable unicast. Private (RFC 1918, IPv6 unique
 * local), loopback, link-local, CGNAT (100.64/10), documentation and benchmarking ranges,
 * multicast, broadcast, unspecified and reserved addresses are not, nor is IPv6 outside
 * 2000::/3 (the only global unicast space allocated) or in 6to4/Teredo/NAT64 (ipaddr.js's
 * `range()` names every such block; anything else is "unicast").
 */
export function isPublic(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.range() !== "unicast") return false;
  if (address.kind() === "ipv4") return true;
  const first = (address as ipaddr.IPv6).parts[0] ?? 0;
  return first >= 0x2000 && first <= 0x3fff;
}

/**
 * The visitor's address as text ("1.2.3.4", "2001:db8::1"; an IPv4-mapped address as its IPv4
 * address, no port), or null when there is none that parses.
 *
 * `headerName` is the operator's WREN_CLIENT_IP_HEADER. When it is set, Wren runs behind the
 * operator's own reverse proxy and the address is read from that header alone. For a list
 * such as X-Forwarded-For ("client, proxy1, proxy2") the LAST entry is taken: each proxy
 * appends the address it received the request from, so the last entry is the one the
 * operator's own proxy wrote, while everything before it came with the request and can be
 * forged by anyone ("X-Forwarded-For: 8.8.8.8" sent by the visitor). A deployment behind
 * several proxies of its own names a header that its outermost proxy sets (e.g. one that
 * proxy overwrites, such as X-Real-IP or CF-Connecting-IP).
 *
 * When it is unset, the address is the one workerd saw on the socket: `request.cf.clientIp`
 * ("ip:port", or "[v6]:port"). No header is read then — any header could be forged by the
 * visitor.
 */
export function clientAddress(request: Request, headerName: string | undefined): string | null {
  let text: string | null | undefined;
  const name = headerName?.trim();
  if (name) {
    let value: string | null;
    try {
      value = request.headers.get(name);
    } catch {
      // Not a valid header name: nothing can be read from it.
      return null;
    }
    if (value === null) return null;
    // Headers joins repeated lines with ", ", so the last entry is the last line's last one.
    text = value.slice(value.lastIndexOf(",") + 1);
  } else {
    const cf = (request as { cf?: unknown }).cf;
    const clientIp = cf !== null && typeof cf === "object" ? (cf as { clientIp?: unknown }).clientIp : undefined;
    text = typeof clientIp === "string" ? clientIp : null;
  }
  const address = parseAddress(text);
  return address ? address.toString() : null;
}
