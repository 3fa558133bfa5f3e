/**
 * Alert rules, the operator's watch on a counter (worker/alerts/ evaluates them and delivers
 * their notifications):
 *
 * - `threshold`: a site's `pageviews` or `visitors`, or a goal's conversions, `below` or `above`
 *   a threshold over the trailing `window_hours` closed hours, the figure the Overview would show.
 *   The threshold is 1 ("fires when there are none at all") or at least k: a figure is either 0,
 *   suppressed or drawn from k sessions, so a threshold between could only ever be crossed by a
 *   figure no one may see. A smoke-test goal (the operator's synthetic conversions, shown exactly)
 *   takes any threshold, over the window trailing the current minute.
 * - `deployment_without_smoke`: fires when a deployment marker has no smoke-test conversion
 *   beside it `within_minutes` after it was deployed.
 *
 * Each destination's signing secret is derived from the server secret and the destination's
 * id (secrets.ts): shown once when the destination is made, never stored; so is its full URL
 * (masked-url.ts).
 *
 * One file a job: types.ts (shapes), validate.ts (what the schema cannot check), store.ts
 * (reads), changes.ts (writes), history.ts, notification.ts (the payload), test-notifications.ts.
 * The workers (worker/alerts/, worker/api/) import this folder; it imports none of them
 * (test/unit/layers.test.ts).
 */
export * from "./types";
export { checkThreshold } from "./validate";
export { findRule, loadRules, requireRule, siteRules } from "./store";
export { createRule, deleteRule, ruleDeletes, updateRule, type CreatedRule, type Settings } from "./changes";
export { alertHistory, ruleHistory, HISTORY_TESTS, HISTORY_TRANSITIONS, type DeliveryRecord, type RuleHistory } from "./history";
export { queueTestNotifications, testStatements } from "./test-notifications";
export { notification, type Marker, type Notification, type NotificationType } from "./notification";
export { destinationSecret } from "./secrets";
export { maskedUrl } from "./masked-url";
export { ALERT_CONDITIONS, ALERT_KINDS, ALERT_METRICS, DESTINATION_FORMATS } from "../../lib/schema";
