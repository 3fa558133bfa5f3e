import { describe, expect, it } from "vitest";
import { constantTimeEqual, importHmacKey } from "../../worker/lib/crypto";
import { parseSiteToken, siteToken, verifySiteToken } from "../../worker/lib/tokens";

const SECRET = "0f".repeat(32);
const OTHER_SECRET = "a1".repeat(32);

describe("site tokens", () => {
  it("verifies a token made with the same secret and version", async () => {
    const key = await importHmacKey(SECRET);
    const token = await siteToken(key, "site_abc", 1);
    expect(token).toMatch(/^site_abc\.[A-Za-z0-9_-]{43}$/);
    expect(await verifySiteToken(key, token, 1)).toBe("site_abc");
  });

  it("refuses a rotated, forged, truncated or other-site token", async () => {
    const key = await importHmacKey(SECRET);
    const token = await siteToken(key, "site_abc", 1);
    expect(await verifySiteToken(key, token, 2)).toBeNull();
    const forged = await siteToken(await importHmacKey(OTHER_SECRET), "site_abc", 1);
    expect(await verifySiteToken(key, forged, 1)).toBeNull();
    expect(await verifySiteToken(key, token.slice(0, -1), 1)).toBeNull();
    const other = await siteToken(key, "site_xyz", 1);
    const swapped = `site_abc.${other.split(".")[1]}`;
    expect(await verifySiteToken(key, swapped, 1)).toBeNull();
  });

  it("parses only the SITE_ID.MAC shape", () => {
    expect(parseSiteToken("site_a.mac")).toEqual({ siteId: "site_a", mac: "mac" });
    expect(parseSiteToken("site_a.")).toBeNull();
    expect(parseSiteToken(".mac")).toBeNull();
    expect(parseSiteToken("nosite.mac")).toBeNull();
    expect(parseSiteToken(`site_a.${"x".repeat(300)}`)).toBeNull();
  });

  it("refuses a short server secret", async () => {
    await expect(importHmacKey("abcd")).rejects.toThrow(/≥ 32 bytes/);
  });
});

describe("constantTimeEqual", () => {
  it("compares by value, including length", () => {
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
  });
});
