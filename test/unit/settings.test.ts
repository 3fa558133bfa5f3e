import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSettings } from "../../cli/settings";

describe("loadSettings", () => {
  it("defaults to loopback and ./data", () => {
    expect(loadSettings({})).toEqual({
      host: "127.0.0.1",
      port: 8787,
      dataDir: resolve("data"),
      libsqlUrl: undefined,
      libsqlAuthToken: undefined,
      dbPort: 0,
      publicUrl: "http://127.0.0.1:8787",
      publicUrlConfigured: false,
    });
  });
  it("takes overrides from the environment", () => {
    const s = loadSettings({ HOST: "::1", PORT: "9000", WREN_DATA: "/srv/wren", LIBSQL_URL: "http://db:8080", WREN_PUBLIC_URL: "https://stats.example/" });
    expect(s).toMatchObject({ host: "::1", port: 9000, dataDir: "/srv/wren", libsqlUrl: "http://db:8080", publicUrl: "https://stats.example" });
  });
  it("takes the public URL from configuration only, and refuses one that is not an http(s) URL", () => {
    expect(loadSettings({ HOST: "0.0.0.0", PORT: "80" }).publicUrl).toBe("http://127.0.0.1:80");
    expect(loadSettings({ WREN_PUBLIC_URL: "https://stats.example/wren/" }).publicUrl).toBe("https://stats.example/wren");
    for (const bad of ["stats.example", "javascript:alert(1)", "https://u:p@stats.example", "https://stats.example/?a=1"]) {
      expect(() => loadSettings({ WREN_PUBLIC_URL: bad }), bad).toThrow(`WREN_PUBLIC_URL must be an http:// or https:// URL without query or credentials, got "${bad}"`);
    }
  });
  it("takes a replica for reports only beside a primary, and only as a server URL", () => {
    expect(loadSettings({ LIBSQL_URL: "http://10.0.0.1:8081", LIBSQL_READ_URL: "http://127.0.0.1:8082" }).libsqlReadUrl).toBe(
      "http://127.0.0.1:8082",
    );
    expect(loadSettings({ LIBSQL_URL: "http://10.0.0.1:8081" }).libsqlReadUrl).toBeUndefined();
    expect(() => loadSettings({ LIBSQL_READ_URL: "http://127.0.0.1:8082" })).toThrow(
      "LIBSQL_READ_URL names a replica of LIBSQL_URL: set LIBSQL_URL to the primary too",
    );
    for (const bad of ["127.0.0.1:8082", "file:replica.db", "http://127.0.0.1:8082/v2/pipeline", "http://a b"]) {
      expect(() => loadSettings({ LIBSQL_URL: "http://10.0.0.1:8081", LIBSQL_READ_URL: bad }), bad).toThrow(
        `LIBSQL_READ_URL must be an http://, https:// or libsql:// URL of a libSQL server, got "${bad}"`,
      );
    }
  });
  it("refuses a bad port", () => {
    expect(() => loadSettings({ PORT: "http" })).toThrow('PORT must be a port number, got "http"');
    expect(() => loadSettings({ WREN_DB_PORT: "70000" })).toThrow(/WREN_DB_PORT/);
  });
});
