/**
 * The supervisor's mail settings (cli/mail-sender.ts): WREN_SMTP_URL and WREN_MAIL_FROM checked
 * before anything starts, the retry waits, and a failure's reason that never carries the SMTP
 * user or password.
 */
import { describe, expect, it } from "vitest";
import { CliError } from "../../cli/output";
import { failureReason, mailRetryDelay, mailSettings } from "../../cli/mail-sender";

describe("mailSettings", () => {
  it("is null without WREN_SMTP_URL, and takes smtp:// or smtps:// with a sender", () => {
    expect(mailSettings({})).toBeNull();
    expect(
      mailSettings({ WREN_SMTP_URL: "smtps://u:p@mail.example.com:465", WREN_MAIL_FROM: "Wren <wren@example.com>" }),
    ).toEqual({
      url: "smtps://u:p@mail.example.com:465",
      from: "Wren <wren@example.com>",
      retryBaseMs: 30_000,
      requireTls: false,
    });
    // smtp:// to another machine must upgrade before the password goes; a loopback relay need not.
    expect(mailSettings({ WREN_SMTP_URL: "smtp://u:p@mail.example.com:587", WREN_MAIL_FROM: "w@example.com" })?.requireTls).toBe(
      true,
    );
    expect(mailSettings({ WREN_SMTP_URL: "smtp://127.0.0.1:25", WREN_MAIL_FROM: "w@example.com" })?.requireTls).toBe(false);
    expect(mailSettings({ WREN_SMTP_URL: "smtp://localhost:25", WREN_MAIL_FROM: "w@example.com" })?.requireTls).toBe(false);
    expect(
      mailSettings({ WREN_SMTP_URL: "smtp://127.0.0.1:25", WREN_MAIL_FROM: "w@example.com", WREN_MAIL_RETRY_SECONDS: "5" })
        ?.retryBaseMs,
    ).toBe(5_000);
  });
  it.each([
    [{ WREN_SMTP_URL: "http://mail.example.com", WREN_MAIL_FROM: "w@example.com" }, /smtp:\/\/ or smtps:\/\//],
    [{ WREN_SMTP_URL: "not a url", WREN_MAIL_FROM: "w@example.com" }, /must be a URL/],
    [{ WREN_SMTP_URL: "smtp://mail.example.com" }, /WREN_MAIL_FROM is required/],
    [{ WREN_SMTP_URL: "smtp://mail.example.com", WREN_MAIL_FROM: "nobody" }, /WREN_MAIL_FROM must be an email address/],
    [
      { WREN_SMTP_URL: "smtp://mail.example.com", WREN_MAIL_FROM: "w@example.com", WREN_MAIL_RETRY_SECONDS: "0" },
      /WREN_MAIL_RETRY_SECONDS/,
    ],
  ])("refuses %o", (env, message) => {
    expect(() => mailSettings(env)).toThrow(CliError);
    expect(() => mailSettings(env)).toThrow(message);
  });
});

describe("retries and reasons", () => {
  it("waits the base, doubling, at most an hour", () => {
    expect([1, 2, 3, 8, 30].map((n) => mailRetryDelay(n, 30_000))).toEqual([30_000, 60_000, 120_000, 3_600_000, 3_600_000]);
  });
  it("never says the user or password, even when the error quotes the URL", () => {
    const settings = {
      url: "smtp://wren%40example.com:p%40ss-w0rd@mail.example.com:587",
      from: "w@example.com",
      retryBaseMs: 1000,
      requireTls: true,
    };
    const error = Object.assign(new Error(`Invalid login for wren@example.com with p@ss-w0rd at ${settings.url}\nmore`), {
      responseCode: 535,
    });
    const reason = failureReason(error, settings);
    expect(reason).toBe("SMTP 535: Invalid login for *** with *** at ***");
  });
});
