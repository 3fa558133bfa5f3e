/**
 * The OIDC settings as the worker and `wren start` read them (domain/people/oidc-config.ts), and
 * where a sign-in may land afterwards (safeReturnTo): plain http only to a provider
 * WREN_OIDC_ALLOW names, a secret always, scopes with openid; same-origin paths only.
 */
import { describe, expect, it } from "vitest";
import { oidcConfig, oidcRedirectUri } from "../../worker/domain/people/oidc-config";
import { safeReturnTo } from "../../worker/domain/people/oidc";

const BASE = {
  WREN_OIDC_ISSUER: "https://id.example.com/realms/acme",
  WREN_OIDC_CLIENT_ID: "wren",
  WREN_OIDC_CLIENT_SECRET: "s3cret",
};

describe("oidcConfig", () => {
  it("is off without issuer and client id, and takes the defaults otherwise", () => {
    expect(oidcConfig({})).toBeNull();
    expect(oidcConfig(BASE)).toMatchObject({
      issuer: "https://id.example.com/realms/acme",
      clientId: "wren",
      clientSecret: "s3cret",
      name: "your identity provider",
      linkByEmail: false,
      scopes: "openid email profile",
      allowInsecure: false,
    });
    expect(oidcRedirectUri("https://wren.example.com/")).toBe("https://wren.example.com/api/v1/auth/oidc/callback");
  });

  it("refuses a half configuration, a missing secret, a bad issuer, scopes without openid and a bad LINK_BY_EMAIL", () => {
    const refusals: [Record<string, string>, RegExp][] = [
      [{ WREN_OIDC_ISSUER: BASE.WREN_OIDC_ISSUER }, /WREN_OIDC_CLIENT_ID must be set/],
      [{ WREN_OIDC_CLIENT_ID: "wren" }, /WREN_OIDC_ISSUER must be set/],
      [{ ...BASE, WREN_OIDC_CLIENT_SECRET: "" }, /WREN_OIDC_CLIENT_SECRET must be set/],
      [{ ...BASE, WREN_OIDC_ISSUER: "id.example.com" }, /WREN_OIDC_ISSUER must be an https:\/\/ URL/],
      [{ ...BASE, WREN_OIDC_ISSUER: "https://id.example.com/?x=1" }, /without query/],
      [{ ...BASE, WREN_OIDC_ISSUER: "http://id.example.com" }, /plain http:\/\/ only for a host WREN_OIDC_ALLOW names/],
      [{ ...BASE, WREN_OIDC_SCOPES: "email profile" }, /WREN_OIDC_SCOPES must be space-separated scopes including openid/],
      [{ ...BASE, WREN_OIDC_LINK_BY_EMAIL: "yes" }, /WREN_OIDC_LINK_BY_EMAIL must be true or false/],
      [{ ...BASE, WREN_OIDC_ALLOW: "not a host!" }, /WREN_OIDC_ALLOW: "not a host!" is not/],
    ];
    for (const [env, message] of refusals) expect(() => oidcConfig(env), JSON.stringify(env)).toThrow(message);
  });

  it("allows plain http only to a host, address or block WREN_OIDC_ALLOW names", () => {
    expect(oidcConfig({ ...BASE, WREN_OIDC_ISSUER: "http://127.0.0.1:9000", WREN_OIDC_ALLOW: "127.0.0.1" })?.allowInsecure).toBe(
      true,
    );
    expect(oidcConfig({ ...BASE, WREN_OIDC_ISSUER: "http://10.1.2.3/kc", WREN_OIDC_ALLOW: "10.0.0.0/8" })?.allowInsecure).toBe(
      true,
    );
    expect(
      oidcConfig({ ...BASE, WREN_OIDC_ISSUER: "http://keycloak:8080/realms/x", WREN_OIDC_ALLOW: "keycloak" })?.allowInsecure,
    ).toBe(true);
    expect(() => oidcConfig({ ...BASE, WREN_OIDC_ISSUER: "http://10.1.2.3", WREN_OIDC_ALLOW: "192.168.0.0/16" })).toThrow(
      /plain http/,
    );
  });
});

describe("safeReturnTo", () => {
  const base = "https://wren.example.com";
  it("keeps a path on this origin and drops anything that leaves it", () => {
    expect(safeReturnTo("/dashboard/s/site_1/pages?period=7d", base)).toBe("/dashboard/s/site_1/pages?period=7d");
    expect(safeReturnTo("/dashboard/#x", base)).toBe("/dashboard/");
    for (const away of [
      undefined,
      "",
      "https://evil.example/",
      "//evil.example/",
      "/\\evil.example",
      "\\\\evil.example",
      "javascript:alert(1)",
      "dashboard",
      "/ok\nSet-Cookie: x=1",
      `/${"a".repeat(600)}`,
    ]) {
      expect(safeReturnTo(away, base), String(away)).toBe("/dashboard/");
    }
  });
});
