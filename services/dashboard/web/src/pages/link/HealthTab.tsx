import { useQuery } from '@tanstack/react-query';
import { pollEvery, queries } from '../../api/queries';
import { ErrorState, Loading } from '../../components/ErrorState';
import { HealthHistory, LatestHealth } from '../../components/HealthReport';
import { useLinkContext } from './link-context';

const REFRESH_MS = 30_000;

/** Health: the plugin's latest GET /health report and its recent history. */
export function HealthTab() {
  const { guildId, roleId } = useLinkContext();
  const { data, error, isPending, refetch } = useQuery({
    ...queries.linkHealth(guildId, roleId),
    refetchInterval: pollEvery(REFRESH_MS),
  });

  if (isPending) return <Loading />;
  if (!data) return error ? <ErrorState error={error} onRetry={() => void refetch()} /> : null;
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
