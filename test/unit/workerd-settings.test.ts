/** What `wren start` hands workerd: settings refused before start, and the address the two processes use to reach each other. */
import { describe, expect, it } from "vitest";
import { CliError } from "../../cli/output";
import {
  clientIpHeaderSetting,
  clockOffsetSetting,
  connectHost,
  importMaxSetting,
  kAnonymitySetting,
  publishIntervalSetting,
  retentionSetting,
} from "../../cli/workerd";
import { importMaxBytes } from "../../worker/lib/import-limit";

describe("WREN_RAW_RETENTION_DAYS", () => {
  it("passes whole days from 2 to 36500 and refuses anything else with the variable's name", () => {
    expect(retentionSetting(undefined)).toBeUndefined();
    expect(retentionSetting(" ")).toBeUndefined();
    expect(retentionSetting("90")).toBe("90");
    expect(retentionSetting("2")).toBe("2");
    expect(retentionSetting("36500")).toBe("36500");
    for (const bad of ["1", "0", "2.5", "-30", "forever", "36501", "1e3"]) {
      expect(() => retentionSetting(bad)).toThrow(
        `WREN_RAW_RETENTION_DAYS must be a whole number of days from 2 to 36500, got "${bad}"`,
      );
    }
  });
});

describe("WREN_IMPORT_MAX_MB", () => {
  it("passes whole megabytes from 1 to 1024 and refuses anything else with the variable's name", () => {
    expect(importMaxSetting(undefined)).toBeUndefined();
    expect(importMaxSetting(" ")).toBeUndefined();
    expect(importMaxSetting("1")).toBe("1");
    expect(importMaxSetting(" 250 ")).toBe("250");
    expect(importMaxSetting("1024")).toBe("1024");
    for (const bad of ["0", "1025", "2.5", "-1", "100MB", "1e2"]) {
      expect(() => importMaxSetting(bad)).toThrow(`WREN_IMPORT_MAX_MB must be a whole number of megabytes from 1 to 1024, got "${bad}"`);
    }
  });

  it("is read by the workers in bytes, 25 MB when unset or not a setting wren start passes", () => {
    expect(importMaxBytes(undefined)).toBe(25 * 1024 * 1024);
    expect(importMaxBytes(null)).toBe(25 * 1024 * 1024);
    expect(importMaxBytes("2")).toBe(2 * 1024 * 1024);
    expect(importMaxBytes("1024")).toBe(1024 * 1024 * 1024);
    for (const other of ["", "0", "1025", "2.5", "lots"]) expect(importMaxBytes(other)).toBe(25 * 1024 * 1024);
  });
});

describe("WREN_CLIENT_IP_HEADER", () => {
  it("passes a header name or nothing, and refuses anything else with the variable's name", () => {
    expect(clientIpHeaderSetting(undefined)).toBeNull();
    expect(clientIpHeaderSetting("  ")).toBeNull();
    expect(clientIpHeaderSetting(" X-Real-IP ")).toBe("X-Real-IP");
    expect(clientIpHeaderSetting("X-Forwarded-For")).toBe("X-Forwarded-For");
    for (const bad of ["X Real IP", "X-Real-IP: 1.2.3.4", "x\nInjected: 1", "ä", "x".repeat(65)]) {
      expect(() => clientIpHeaderSetting(bad)).toThrow(CliError);
      expect(() => clientIpHeaderSetting(bad)).toThrow(`WREN_CLIENT_IP_HEADER must be an HTTP header name (letters, digits, -), got "${bad}"`);
    }
  });
});

describe("WREN_PUBLISH_INTERVAL", () => {
  it("passes 1 to 60 seconds and refuses anything else with the variable's name", () => {
    expect(publishIntervalSetting(undefined)).toBeUndefined();
    expect(publishIntervalSetting(" ")).toBeUndefined();
    expect(publishIntervalSetting("10")).toBe("10");
    expect(publishIntervalSetting("1.5")).toBe("1.5");
    for (const bad of ["0", "0.5", "61", "-3", "ten", "1e3"]) {
      expect(() => publishIntervalSetting(bad)).toThrow(CliError);
      expect(() => publishIntervalSetting(bad)).toThrow(`WREN_PUBLISH_INTERVAL must be a number of seconds from 1 to 60, got "${bad}"`);
    }
  });

  it("WREN_K_ANONYMITY stays refused below 2", () => {
    expect(kAnonymitySetting("5")).toBe("5");
    expect(() => kAnonymitySetting("1")).toThrow(CliError);
  });
});

describe("WREN_TEST_CLOCK_OFFSET_MS", () => {
  it("passes a whole number of milliseconds (negative too) or nothing, and refuses anything else with the variable's name", () => {
    expect(clockOffsetSetting(undefined)).toBeUndefined();
    expect(clockOffsetSetting(" ")).toBeUndefined();
    expect(clockOffsetSetting("0")).toBe("0");
    expect(clockOffsetSetting(" 1800000 ")).toBe("1800000");
    expect(clockOffsetSetting("-60000")).toBe("-60000");
    for (const bad of ["1.5", "1e3", "ten", "0x10", "60s", "99999999999999999999", "+5"]) {
      expect(() => clockOffsetSetting(bad)).toThrow(CliError);
      expect(() => clockOffsetSetting(bad)).toThrow(`WREN_TEST_CLOCK_OFFSET_MS must be a whole number of milliseconds, got "${bad}"`);
    }
  });
});

describe("the address the api process reaches the front door at", () => {
  it("is this machine's loopback for a wildcard, the host itself otherwise", () => {
    expect(connectHost("0.0.0.0")).toBe("127.0.0.1");
    expect(connectHost("::")).toBe("[::1]");
    expect(connectHost("127.0.0.1")).toBe("127.0.0.1");
    expect(connectHost("::1")).toBe("[::1]");
    expect(connectHost("10.0.0.5")).toBe("10.0.0.5");
  });
});
