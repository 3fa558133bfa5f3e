/** Scheduled digests (issue 40): schedules (store.ts), periods (period.ts) and their words (render.ts). */
export * from "./store";
export * from "./period";
export * from "./render";
export { DIGEST_FREQUENCIES, type DigestFrequency } from "../../lib/schema";
