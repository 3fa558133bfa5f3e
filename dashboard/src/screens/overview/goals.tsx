/**
 * Each goal's conversions and conversion rate, since and before. A rate is always written with
 * its denominator ("6 of 8 sessions, 75 %"): a rate alone hides how few sessions it rests on.
 */
import { linkTo } from "../../state/location";
import { FigureView, RateView } from "../../ui/figure";
import type { Overview } from "./cards";
import { Empty } from "../../ui/states";

export function GoalsTable({ overview, site }: { overview: Overview; site: string }) {
  const { goals, k } = overview;
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
                <FigureView figure={conversions.current} k={k} />
              </td>
              <td>
                <RateView numerator={rate.numerator.current} denominator={rate.denominator.current} rate={rate.current} k={k} />
              </td>
              <td class="num">
                <FigureView figure={conversions.previous} k={k} />
              </td>
              <td>
                <RateView numerator={rate.numerator.previous} denominator={rate.denominator.previous} rate={rate.previous} k={k} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
