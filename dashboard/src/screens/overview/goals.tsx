/**
 * Each goal's conversions and conversion rate, since and before. A rate is always written with
 * its denominator ("6 of 8 sessions, 75 %"): a rate alone hides how few sessions it rests on.
 */
import { linkTo } from "../../state/location";
import { noDataBefore, NoDataView, RateView, SiteFigureView } from "../../ui/figure";
import { formatInstant } from "../../ui/time";
import type { BeforeSite, Overview } from "./cards";
import { Empty } from "../../ui/states";

export function GoalsTable({ overview, site, before }: { overview: Overview; site: string; before: BeforeSite }) {
  const { goals, k } = overview;
  // While no hour since the marker has closed the API sends no figures, goals' included: that is not "no goals".
  if (overview.pending_until && overview.deployment) {
    return (
      <Empty>
        <p>
          No closed hour since {overview.deployment.version} yet; the first one closes at {formatInstant(overview.pending_until, overview.timezone)}.
          Each goal's conversions appear here then.
        </p>
      </Empty>
    );
  }
  if (goals.length === 0) {
    return (
      <Empty>
        <p>
          No goals yet. <a href={linkTo(`/s/${encodeURIComponent(site)}/goals`)}>Create one on the Goals screen</a> to see conversions and
          rates here.
        </p>
      </Empty>
    );
  }
  return (
    // Focusable, so a keyboard can scroll it where it is wider than the screen.
    <div class="table-wrap" tabIndex={0} role="region" aria-labelledby="overview-goals-caption">
      <table class="overview-goals">
        <caption id="overview-goals-caption">Goals, current vs previous window</caption>
        <thead>
          <tr>
            <th scope="col">Goal</th>
            <th scope="col" class="num">
              Conversions (current)
            </th>
            <th scope="col">Rate (current)</th>
            <th scope="col" class="num">
              Conversions (previous)
            </th>
            <th scope="col">Rate (previous)</th>
          </tr>
        </thead>
        <tbody>
          {goals.map(({ goal, conversions, rate }) => (
            <tr key={goal.id}>
              <th scope="row">
                {goal.name} <span class="muted">({goal.kind})</span>
              </th>
              <td class="num">
                <SiteFigureView figure={conversions.current} k={k} before={before.current} />
              </td>
              <td>
                {noDataBefore(rate.denominator.current, before.current) ? (
                  <NoDataView />
                ) : (
                  <RateView numerator={rate.numerator.current} denominator={rate.denominator.current} rate={rate.current} k={k} />
                )}
              </td>
              <td class="num">
                <SiteFigureView figure={conversions.previous} k={k} before={before.previous} />
              </td>
              <td>
                {noDataBefore(rate.denominator.previous, before.previous) ? (
                  <NoDataView />
                ) : (
                  <RateView numerator={rate.numerator.previous} denominator={rate.denominator.previous} rate={rate.previous} k={k} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
