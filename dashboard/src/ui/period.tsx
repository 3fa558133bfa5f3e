/**
 * The period picker shared by the report screens. The choice lives in the URL (?period=…), so
 * a view can be bookmarked; a custom range takes two dates.
 */
import { useState } from "preact/hooks";
import { setQuery } from "../state/location";
import { PERIODS, period, type PeriodName } from "../state/period";

export function PeriodPicker() {
  const current = period.value;
  const [from, setFrom] = useState(current.from ?? "");
  const [to, setTo] = useState(current.to ?? "");
  const choose = (name: PeriodName) =>
    name === "custom" ? setQuery({ period: "custom", from: from || undefined, to: to || undefined }) : setQuery({ period: name, from: undefined, to: undefined });
  return (
    <div class="period">
      <div role="group" aria-label="Period" class="segmented">
        {PERIODS.map((p) => (
          <button key={p.name} type="button" aria-pressed={current.name === p.name} onClick={() => choose(p.name)}>
            {p.label}
          </button>
        ))}
      </div>
      {current.name === "custom" && (
        <form
          class="custom-range"
          onSubmit={(event) => {
            event.preventDefault();
            setQuery({ period: "custom", from, to });
          }}
        >
          <label>
            From <input type="date" required value={from} onInput={(e) => setFrom((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            To <input type="date" required value={to} onInput={(e) => setTo((e.target as HTMLInputElement).value)} />
          </label>
          <button type="submit">Apply</button>
        </form>
      )}
    </div>
  );
}
