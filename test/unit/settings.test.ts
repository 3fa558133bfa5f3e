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
    });
  });
  it("takes overrides from the environment", () => {
    const s = loadSettings({ HOST: "::1", PORT: "9000", WREN_DATA: "/srv/wren", LIBSQL_URL: "http://db:8080", WREN_PUBLIC_URL: "https://stats.example/" });
    expect(s).toMatchObject({ host: "::1", port: 9000, dataDir: "/srv/wren", libsqlUrl: "http://db:8080", publicUrl: "https://stats.example" });
  });
  it("refuses a bad port", () => {
    expect(() => loadSettings({ PORT: "http" })).toThrow('PORT must be a port number, got "http"');
    expect(() => loadSettings({ WREN_DB_PORT: "70000" })).toThrow(/WREN_DB_PORT/);
  });
});
