import { describe, expect, it } from "vitest";
import { normalizeHostname } from "../../worker/domain/hostname";

/** A 253-character hostname, the longest there is. */
const LONGEST = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;

describe("normalizeHostname", () => {
  it.each([
    ["example.com", "example.com"],
    ["Shop.Example.COM", "shop.example.com"],
    ["Bücher.example", "xn--bcher-kva.example"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["  preview-42.example.dev  ", "preview-42.example.dev"],
    ["localhost", "localhost"],
    ["example.com.", "example.com"],
    // The longest name (253 characters) is still itself written fully qualified.
    [`${LONGEST}.`, LONGEST],
  ])("accepts %j as %j", (input, expected) => {
    expect(normalizeHostname(input)).toEqual({ ok: true, hostname: expected });
  });

  it.each([
    ["", "must not be empty"],
    ["https://example.com", "must be a hostname, without a scheme"],
    ["example.com/path", "must be a hostname, without a path, query or credentials"],
    ["example.com:8080", "must be a hostname, without a port"],
    ["*.example.com", "must not contain a wildcard"],
    ["user@example.com", "must be a hostname, without a path, query or credentials"],
    ["exa mple.com", "must be a hostname, without a path, query or credentials"],
    ["-bad.example", "is not a valid hostname"],
    ["192.168.1.1", "must be a hostname, not an IP address"],
    ["a".repeat(254), "must be at most 253 characters"],
    ["example.com..", "is not a valid hostname"],
  ])("refuses %j", (input, reason) => {
    expect(normalizeHostname(input)).toEqual({ ok: false, reason });
  });
});
