import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { pollEvery, queries } from '../api/queries';
import { Breadcrumbs } from '../components/Breadcrumbs';
import { DateTime } from '../components/DateTime';
import { ErrorState, Loading } from '../components/ErrorState';
import { usePageTitle } from '../components/PageTitle';
import { RoleName } from '../components/RoleName';
import { HealthBadge } from '../components/status-badges';
import { lastSeen, readHealthDetail, upSummary } from '../health/health-detail';
import { linkPaths } from '../paths';
import { PluginUrl } from '../components/PluginUrl';
import styles from './GuildHealthPage.module.css';
import { ScrollTable } from '../components/ScrollTable';

const REFRESH_MS = 30_000;

/** `/guilds/:guildId/health`: the plugin status page, one row per link. */
export function GuildHealthPage() {
  const guildId = useParams().guildId ?? '';
  usePageTitle('Plugin status');
  const { data, error, isPending, refetch } = useQuery({
    ...queries.guildHealth(guildId),
    refetchInterval: pollEvery(REFRESH_MS),
  });
  const guild = useQuery(queries.guild(guildId));

  return (
    <>
      <Breadcrumbs guildId={guildId} guildName={guild.data?.name} current="Plugin status" />
      <div className="page-header">
        <h1>Plugin status</h1>
      </div>
      {isPending ? <Loading /> : null}
      {!data && error ? <ErrorState error={error} onRetry={() => void refetch()} /> : null}
      {data && data.links.length === 0 ? (
        <div className="empty-state">
          <p>This server has no role links, so there are no plugins to watch.</p>
        </div>
      ) : null}
      {data && data.links.length > 0 ? (
        <ScrollTable label="Plugin status table">
          <table className={styles.table}>
            <caption className="visually-hidden">Latest health of every plugin</caption>
            <thead>
              <tr>
                <th scope="col">Role</th>
                <th scope="col">Plugin URL</th>
                <th scope="col">Status</th>
                <th scope="col">Checks</th>
                <th scope="col">Services</th>
                <th scope="col">Latency</th>
                <th scope="col">Last checked</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {data.links.map(({ role_id, role, health }) => {
                const latest = health.latest;
                const detail = readHealthDetail(latest?.detail);
                const seen = lastSeen(latest ? [latest, ...health.history] : health.history);
                return (
                  <tr key={role_id}>
                    <th scope="row">
                      <Link to={linkPaths(guildId, role_id).health}>
                        <RoleName role={role} roleId={role_id} />
                      </Link>
                    </th>
                    <td>
                      <PluginUrl url={health.plugin_url} />
                    </td>
                    <td>
                      <HealthBadge status={health.status} prefix="" />
                      {latest?.status === 'unreachable' && detail.reason ? (
                        <div className="muted small">{detail.reason}</div>
                      ) : null}
                    </td>
                    <td>{upSummary(detail.checks) ?? '—'}</td>
                    <td>{upSummary(detail.services) ?? '—'}</td>
                    <td>{latest?.latency_ms != null ? `${Math.round(latest.latency_ms)} ms` : '—'}</td>
                    <td>{latest ? <DateTime iso={latest.checked_at} /> : 'Not polled yet'}</td>
                    <td>{seen ? <DateTime iso={seen} /> : 'Never'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </ScrollTable>
      ) : null}
    </>
  );
}
