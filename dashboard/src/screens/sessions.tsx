/**
 * Sessions (GET /api/v1/sessions, read:sessions): the published days, newest first, each with
 * the figures the reports show of its sessions — the day's sessions, its shown hours and its
 * shown entry pages, perturbed as the reports are; hidden cells are not named. No row per
 * session: counting rows gave exact counts where the reports perturb. Paged by day, in the URL.
 */
import { api, unwrap } from "../api/client";
import { useLoad } from "../state/load";
import { hasScope } from "../state/session";
import { FigureView } from "../ui/figure";
import { Empty, Loaded } from "../ui/states";
import { Pager, urlCursor } from "../ui/table-pager";
import { formatDate, formatInstant, formatTime } from "../ui/time";

/** The site's time zone when the key may read the site: the hours are then written as the site's hours. */
function readZone(site: string): Promise<string | null> {
  if (!hasScope("read:sites")) return Promise.resolve(null);
  return unwrap(api.GET("/api/v1/sites/{id}", { params: { path: { id: site } } })).then(
    (s) => s.timezone,
    () => null, // the viewer's own zone then, named beside each hour
  );
}

/** What the list covers and when its next day is listed, in the site's zone (docs/dashboard.md, Freshness). */
function SessionsFreshness({ list }: { list: { published_through: string | null; timezone: string; next_day_at: string | null } }) {
  const zone = list.timezone;
  const next = list.next_day_at ? ` Next day at ${formatInstant(list.next_day_at, zone)} (${zone}), when today ends.` : "";
  const text =
    list.published_through === null
      ? `Nothing is published yet: days are listed once they end in ${zone}.`
      : `Covers the published days through ${formatDate(list.published_through)} (${zone}).${next}`;
  return (
    <p class="freshness" role="note" data-testid="freshness">
      {text}
    </p>
  );
}

export function SessionsScreen({ site }: { site: string }) {
  const cursor = urlCursor();
  const load = useLoad(() => Promise.all([unwrap(api.GET("/api/v1/sessions", { params: { query: { site, cursor } } })), readZone(site)]), [site, cursor]);
  return (
    <>
      <p class="report-lead">
        A session is one browser's visit within one salt period (a day), known to Wren by an anonymous id that is never shown: no person is
        identified, and the same visitor on another day is another session.
      </p>
      <Loaded load={load} what="sessions">
        {([list, zone]) => {
          const { k } = list;
          return list.days.length === 0 && !cursor ? (
            <Empty>
              <SessionsFreshness list={list} />
              {list.published_through === null ? (
                <p>Nothing is published yet. Days appear here shortly after they end in the site's time zone.</p>
              ) : (
                <p>
                  No sessions to list. A day is listed once it has ended in the site's time zone and the reports show it (it had enough sessions); check
                  that the snippet is installed, then come back tomorrow.
                </p>
              )}
            </Empty>
          ) : (
            <>
              <SessionsFreshness list={list} />
              <div class="table-wrap">
                <table class="report-table">
                  <caption>
                    Sessions by day, newest first
                    {list.published_through && <span class="report-range"> (published through {list.published_through})</span>}
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Day</th>
                      <th scope="col">Sessions</th>
                      <th scope="col">Hours{zone ? ` (${zone})` : ""}</th>
                      <th scope="col">Entry pages</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.days.map((day) => (
                      <tr key={day.day}>
                        <th scope="row">{day.day}</th>
                        <td class="num">
                          <FigureView figure={day.sessions} k={k} />
                        </td>
                        <td>
                          {day.hours.length === 0 ? (
                            <span class="muted" title="The hourly report shows no hour of this day, so neither does the list.">
                              none shown
                            </span>
                          ) : (
                            <ul class="session-cells">
                              {day.hours.map((h) => (
                                <li key={h.hour}>
                                  <time dateTime={h.hour}>{formatTime(h.hour, zone ?? undefined)}</time>: <FigureView figure={h.sessions} k={k} />
                                </li>
                              ))}
                            </ul>
                          )}
                        </td>
                        <td>
                          {day.entry_pages.length === 0 ? (
                            <span class="muted" title="The entry-page breakdown shows no page of this day, so neither does the list.">
                              none shown
                            </span>
                          ) : (
                            <ul class="session-cells">
                              {day.entry_pages.map((e) => (
                                <li key={e.path}>
                                  <span class="report-path">{e.path}</span>: <FigureView figure={e.sessions} k={k} />
                                </li>
                              ))}
                            </ul>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {list.days.length === 0 && <p>No more days.</p>}
              <p class="hint">
                Each figure is the one the reports show for that day, hour or entry page (with the same noise); hours and entry pages the reports hide are
                not listed.
              </p>
              <Pager label="Sessions" nextCursor={list.next_cursor} />
            </>
          );
        }}
      </Loaded>
    </>
  );
}
