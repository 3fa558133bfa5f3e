/**
 * A deployment marker's smoke-test conversions: which goal, when, and whether it attached to a
 * session (the proof that the tracker's beacons got through). Markers carry goal ids only; the
 * names come from the site's goals when the key may read them (read:sites), else the id shows.
 */
import type { Schemas } from "../../api/client";
import { formatInstant } from "../../ui/time";

export { useGoalNames } from "../../state/goal-names";

type SmokeConversion = Schemas["SmokeConversion"];

export function SmokeList({
  smoke,
  goalNames,
  timeZone,
}: {
  smoke: readonly SmokeConversion[];
  goalNames: ReadonlyMap<string, string>;
  /** undefined: the browser's zone. */
  timeZone?: string;
}) {
  if (smoke.length === 0) return <span class="muted">No smoke-test conversion</span>;
  return (
    <ul class="smoke-list">
      {smoke.map((conversion, index) => (
        <li key={`${conversion.id ?? ""}.${conversion.at}.${index}`}>
          <span class="smoke-goal">{goalNames.get(conversion.goal) ?? conversion.goal}</span>{" "}
          <span class="muted">at</span> <time dateTime={conversion.at}>{formatInstant(conversion.at, timeZone, true)}</time>{" "}
          {conversion.attached ? (
            <span class="badge ok">attached to a session</span>
          ) : (
            <span class="badge">not attached</span>
          )}
        </li>
      ))}
    </ul>
  );
}
