import type { EventLogView, EventState } from '@rolelink/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dashboardApi } from '../../api/dashboard-api';
import { queries, queryKeys } from '../../api/queries';
import { Badge, type BadgeTone } from '../../components/Badge';
import { DateTime } from '../../components/DateTime';
import { ErrorState, Loading } from '../../components/ErrorState';
import { useToast } from '../../components/toasts';
import { useLinkContext } from './link-context';
import styles from './EventsTab.module.css';
import { Button } from '../../components/Button';
import { ScrollTable } from '../../components/ScrollTable';

/** While an event waits for delivery the broker's sweep sends it within seconds: look often. */
const PENDING_REFRESH_MS = 3_000;
const IDLE_REFRESH_MS = 30_000;

const STATE: Record<EventState, { text: string; tone: BadgeTone }> = {
  pending: { text: 'Pending', tone: 'info' },
  delivered: { text: 'Delivered', tone: 'success' },
  dropped: { text: 'Dropped', tone: 'danger' },
};

type Attempt = EventLogView['attempts'][number];

/** The plugin's answer to one attempt, in words: its HTTP status, or why no answer came. */
function outcomeText(a: Attempt): string {
  if (a.http_status !== null) return `HTTP ${a.http_status}${a.error ? ` (${a.error})` : ''}`;
  return a.error ?? 'no answer';
}

/**
 * Events: the signed events sent to this link's plugin (docs/dashboard.md, "Event deliveries"), newest
 * first, each with every delivery attempt. A delivered or dropped event can be sent again (an audit entry
 * records who did); the list refreshes every few seconds while any event is still pending.
 */
export function EventsTab() {
  const { guildId, roleId } = useLinkContext();
  const client = useQueryClient();
  const toast = useToast();
  const log = useQuery({
    ...queries.events(guildId, roleId),
    refetchInterval: (q) =>
      q.state.data === undefined
        ? false
        : q.state.data.events.some((e) => e.state === 'pending')
          ? PENDING_REFRESH_MS
          : IDLE_REFRESH_MS,
  });
  const resend = useMutation({
    mutationFn: (eventId: string) => dashboardApi.resendEvent(guildId, roleId, eventId),
    onSuccess: (r) => toast.show('success', `Event ${r.id} queued for delivery again`),
    onError: (err) => toast.show('error', 'The event was not re-sent', err.message),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.events(guildId, roleId) }),
  });

  if (log.isPending) return <Loading />;
  if (!log.data) return log.error ? <ErrorState error={log.error} onRetry={() => void log.refetch()} /> : null;
  const { kinds, events } = log.data;

  return (
    <div>
      <h2>Event deliveries</h2>
      {kinds.length === 0 ? (
        <p className="muted">
          The plugin has not opted in to events: it asks for event kinds in its register or health answer
          (docs/plugin-quickstart.md, &quot;Events&quot;).
        </p>
      ) : (
        <p className="muted small">
          Signed <code>POST /events</code> calls to the plugin, retried with backoff for 24 hours, in order per link.
          Subscribed to: {kinds.join(', ')}.
        </p>
      )}
      {events.length === 0 ? (
        kinds.length > 0 && <p className="muted">No events yet.</p>
      ) : (
        <ScrollTable label="Event deliveries table">
          <table aria-label="Event deliveries">
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Event</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {events.map((e) => (
                <tr key={e.id} aria-label={`Event ${e.seq} ${e.kind}`}>
                  <td>{e.seq}</td>
                  <td>
                    <code>{e.kind}</code>
                    <div className="muted small">
                      {e.id}, <DateTime iso={e.created_at} />
                    </div>
                  </td>
                  <td>
                    <Badge tone={STATE[e.state].tone}>{STATE[e.state].text}</Badge>
                    {e.next_attempt_at && (
                      <div className="muted small">
                        next try <DateTime iso={e.next_attempt_at} />
                      </div>
                    )}
                  </td>
                  <td>
                    {e.attempts.length === 0 ? (
                      <span className="muted">none yet</span>
                    ) : (
                      <ol className={styles.attempts}>
                        {e.attempts.map((a, i) => (
                          <li key={i}>
                            <DateTime iso={a.at} relative={false} />:{' '}
                            <span className={a.http_status !== null && a.http_status < 300 ? styles.ok : styles.failed}>
                              {outcomeText(a)}
                            </span>
                            {a.latency_ms !== null && (
                              <span className="muted"> in {a.latency_ms.toLocaleString()} ms</span>
                            )}
                          </li>
                        ))}
                      </ol>
                    )}
                  </td>
                  <td>
                    {e.state !== 'pending' && (
                      <Button
                        size="small"
                        disabled={resend.isPending && resend.variables === e.id}
                        onClick={() => resend.mutate(e.id)}
                        aria-label={`Resend event ${e.seq}`}
                      >
                        Resend
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
    </div>
  );
}
