import { dashboardApi } from '../../api/dashboard-api';
import { ErrorState, Loading } from '../../components/ErrorState';
import { HealthHistory, LatestHealth } from '../../components/HealthReport';
import { usePolling } from '../../hooks/use-page-visible';
import { useResource } from '../../hooks/use-resource';
import { useLinkContext } from './link-context';

const REFRESH_MS = 30_000;

/** Health: the plugin's latest GET /health report and its recent history. */
export function HealthTab() {
  const { guildId, roleId } = useLinkContext();
  const { data, error, loading, reload } = useResource((signal) => dashboardApi.linkHealth(guildId, roleId, signal), `${guildId}/${roleId}`);
  usePolling(() => void reload(), REFRESH_MS, data !== undefined);

  if (loading) return <Loading />;
  if (!data) return error ? <ErrorState error={error} onRetry={() => void reload()} /> : null;
  return (
    <div>
      <h2>Plugin health</h2>
      <p className="muted small">
        Polled from <code>{data.plugin_url}/health</code>
      </p>
      <LatestHealth health={data} />
      <HealthHistory history={data.history} />
    </div>
  );
}
