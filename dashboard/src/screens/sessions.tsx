/**
 * Sessions (GET /api/v1/sessions, read:sessions): the sessions of published days, newest day
 * first, with only what the reports show — the day, the hour it began and its entry page where
 * the reports show those, and no id. Paged by cursor, kept in the URL.
 */
import { api, unwrap } from "../api/client";
import { useLoad } from "../state/load";
import { hasScope } from "../state/session";
import { Empty, Loaded } from "../ui/states";
import { Pager, urlCursor } from "../ui/table-pager";
import { formatTime } from "../ui/time";

/** The site's time zone when the key may read the site: the hours are then written as the site's hours. */
function readZone(site: string): Promise<string | null> {
  if (!hasScope("read:sites")) return Promise.resolve(null);
  return unwrap(api.GET("/api/v1/sites/{id}", { params: { path: { id: site } } })).then(
    (s) => s.timezone,
    () => null, // the viewer's own zone then, named beside each hour
  );
}

/** The hour a session began, in the site's zone when known, else the reader's; the zone named either way (ui/time.ts). */
function hourText(instant: string, zone: string | null): string {
  return formatTime(instant, zone ?? undefined);
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
        {([list, zone]) =>
          list.sessions.length === 0 && !cursor ? (
            <Empty>
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
              <div class="table-wrap">
                <table class="report-table">
                  <caption>
                    Sessions, newest day first
                    {list.published_through && <span class="report-range"> (published through {list.published_through})</span>}
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Day</th>
                      <th scope="col">Began{zone ? ` (${zone})` : ""}</th>
                      <th scope="col">Entry page</th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.sessions.map((session, index) => (
                      <tr key={index}>
                        <th scope="row">{session.day}</th>
                        <td>
                          {session.hour ? (
                            <time dateTime={session.hour}>{hourText(session.hour, zone)}</time>
                          ) : (
                            <span class="muted" title="The hourly report does not show this hour, so neither does the list.">
                              not shown
                            </span>
                          )}
                        </td>
                        <td class="report-path">
                          {session.entry_path ?? (
                            <span class="muted" title="The pages report does not show this page on this day, so neither does the list.">
                              not shown
                            </span>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              {list.sessions.length === 0 && <p>No more rows.</p>}
              <p class="hint">
                Only days the reports show are listed; an hour or entry page appears only where the reports show it. No pageview counts and no time finer
                than the hour.
              </p>
              <Pager label="Sessions" nextCursor={list.next_cursor} />
            </>
          )
        }
      </Loaded>
    </>
  );
}
