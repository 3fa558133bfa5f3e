/** Paths the collector worker owns; the api worker forwards them over its service binding. */
export const COLLECTOR_PATHS = ["/s2s", "/t.js", "/e"] as const;
