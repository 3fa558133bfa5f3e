/**
 * The site's goal names by id: reports and filters name goals by id, people by name. Read when
 * the key may list goals (read:sites); otherwise the id is shown.
 */
import { api, unwrap } from "../api/client";
import { useLoad } from "./load";
import { hasScope } from "./session";

/** Goal id → name; empty until read, and for keys without read:sites. */
export function useGoalNames(site: string): ReadonlyMap<string, string> {
  const canRead = hasScope("read:sites");
  const load = useLoad(
    () =>
      canRead ? unwrap(api.GET("/api/v1/sites/{id}/goals", { params: { path: { id: site } } })) : Promise.resolve({ goals: [] }),
    [site, canRead],
  );
  return load.status === "ready" ? new Map(load.data.goals.map((goal) => [goal.id, goal.name])) : new Map();
}
