/** The bindings config.capnp gives the alerts worker (evaluation and delivery). */
import type { ClockBindings } from "../lib/clock";
import type { DatabaseBindings } from "../lib/env";

export interface AlertsEnv extends DatabaseBindings, ClockBindings {
  WREN_SECRET: string;
  WREN_K_ANONYMITY?: string | null;
  /** Links in notifications point here. */
  WREN_PUBLIC_URL?: string | null;
  /** Seconds between evaluation passes: 1–60, default 60. */
  WREN_ALERT_INTERVAL?: string | null;
  /** Destinations beyond public addresses (lib/webhook-allow.ts). */
  WREN_WEBHOOK_ALLOW?: string | null;
  /** The first retry's wait in seconds, doubling up to 12 h (default 30). */
  WREN_WEBHOOK_RETRY_SECONDS?: string | null;
  /** `smtp` when `wren start` has WREN_SMTP_URL: digests then queue their mail (domain/mail.ts). */
  WREN_MAIL?: string | null;
}

export const DEFAULT_INTERVAL_MS = 60_000;

/** WREN_ALERT_INTERVAL in ms: 1–60 s, else the default (a minute). */
export function alertIntervalMs(setting: string | null | undefined): number {
  const seconds = Number(setting);
  return setting && Number.isFinite(seconds) && seconds >= 1 && seconds <= 60 ? seconds * 1000 : DEFAULT_INTERVAL_MS;
}
