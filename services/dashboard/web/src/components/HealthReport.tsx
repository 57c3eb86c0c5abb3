import { useId } from 'react';
import type { PluginHealthCheckView, PluginHealthView } from '@rolelink/contracts';
import { readHealthDetail, type ServiceRow } from '../health/health-detail';
import { Badge } from './Badge';
import facts from './facts.module.css';
import styles from './HealthReport.module.css';
import { DateTime, formatDateTime } from './DateTime';
import { HealthBadge, healthText } from './status-badges';
import { ScrollTable } from './ScrollTable';

function UpDown({ status }: { status: 'up' | 'down' | 'unknown' }) {
  return (
    <Badge tone={status === 'up' ? 'success' : status === 'down' ? 'danger' : 'neutral'}>
      {status === 'unknown' ? '?' : status}
    </Badge>
  );
}

/** A mark coloured by its status (a status without a colour of its own keeps the neutral one). */
const markClass = (status: string) => [styles.mark, styles[status]].filter(Boolean).join(' ');

const ms = (v: number | null) => (v === null ? '—' : `${Math.round(v)} ms`);

/** The report's checks or services, one row each (nothing when the report has none); checks also carry a message. */
function ProbeTable({
  caption,
  rows,
  withMessage,
}: {
  caption: string;
  rows: readonly (ServiceRow & { message?: string | null })[];
  withMessage: boolean;
}) {
  if (rows.length === 0) return null;
  return (
    <ScrollTable label={`${caption}, table`}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Status</th>
            <th scope="col">Latency</th>
            {withMessage ? <th scope="col">Message</th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i}>
              <th scope="row">{r.name}</th>
              <td>
                <UpDown status={r.status} />
              </td>
              <td>{ms(r.latency_ms)}</td>
              {withMessage ? <td>{r.message ?? ''}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

/** The latest report: status, when, latency, and the plugin's checks and services tables. */
export function LatestHealth({ health }: { health: PluginHealthView }) {
  const latest = health.latest;
  if (!latest || health.status === 'unknown') {
    return (
      <div className="empty-state">
        <p className="health-status">
          <HealthBadge status="unknown" prefix="" />
        </p>
        <p>The service has not polled this plugin's health endpoint yet. Results appear here after the first poll.</p>
      </div>
    );
  }
  const detail = readHealthDetail(latest.detail);
  return (
    <div className="health-latest">
      <dl className={facts.facts}>
        <div>
          <dt>Status</dt>
          <dd>
            <HealthBadge status={latest.status} prefix="" />
          </dd>
        </div>
        <div>
          <dt>Checked</dt>
          <dd>
            <DateTime iso={latest.checked_at} />
          </dd>
        </div>
        <div>
          <dt>Latency</dt>
          <dd>{ms(latest.latency_ms)}</dd>
        </div>
        {detail.timestamp ? (
          <div>
            <dt>Report time</dt>
            <dd>
              <DateTime iso={detail.timestamp} relative={false} />
            </dd>
          </div>
        ) : null}
      </dl>
      {latest.status === 'unreachable' ? (
        <div className="banner banner-error">
          <p className="banner-title">Unreachable{detail.reason ? `: ${detail.reason}` : ''}</p>
          <p>
            The plugin's GET /health did not answer with a valid report. Implementing it is recommended, not required;
            the User Management API keeps working.
          </p>
        </div>
      ) : null}
      <ProbeTable caption="Checks" rows={detail.checks} withMessage />
      <ProbeTable caption="Services" rows={detail.services} withMessage={false} />
    </div>
  );
}

/** Recent statuses as a strip of coloured marks, newest first, labelled by its heading, with a legend and its time span. */
export function HealthHistory({ history }: { history: PluginHealthCheckView[] }) {
  const headingId = useId();
  if (history.length === 0) return null;
  const seen = [...new Set(history.map((h) => h.status))];
  return (
    <div className="history">
      <h3 className={styles.heading} id={headingId}>
        Recent checks (newest first)
      </h3>
      <ol className={styles.strip} aria-labelledby={headingId}>
        {history.map((h, i) => {
          const label = `${healthText(h.status)} at ${formatDateTime(h.checked_at)}`;
          return (
            <li key={i} className={markClass(h.status)} title={label}>
              <span className="visually-hidden">{label}</span>
            </li>
          );
        })}
      </ol>
      <p className={`${styles.span} muted small`}>
        <span>
          Newest: <DateTime iso={history[0]!.checked_at} relative={false} />
        </span>
        <span>
          Oldest: <DateTime iso={history[history.length - 1]!.checked_at} relative={false} />
        </span>
      </p>
      <ul className={`${styles.legend} small`} aria-label="Legend">
        {seen.map((status) => (
          <li key={status}>
            <span className={markClass(status)} aria-hidden="true" />
            {healthText(status)}
          </li>
        ))}
      </ul>
    </div>
  );
}
