import type { ConfigView } from '@rolelink/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { queries, queryKeys } from '../../api/queries';
import { DateTime } from '../../components/DateTime';
import { ErrorBanner, FieldErrorList, Loading } from '../../components/ErrorState';
import { ConfigForm } from '../../config-form/ConfigForm';
import { IframeConfig } from '../../iframe/IframeConfig';
import { useLinkContext } from './link-context';
import styles from './ConfigurationTab.module.css';
import { Button } from '../../components/Button';

function FallbackNotice({ view }: { view: ConfigView }) {
  if (view.source !== 'fallback') return null;
  const why = view.fallback_reason === 'invalid_schema' ? 'returned an invalid schema' : 'could not be reached';
  return (
    <div className="banner banner-warning" role="status">
      <p className="banner-title">The plugin server {why}.</p>
      <p>
        The last known form (fetched <DateTime iso={view.fetched_at} />) is shown without the plugin's current values.
        Saving may fail until the plugin answers again.
      </p>
      {view.schema_errors?.length ? (
        <details>
          <summary>What was wrong with the plugin's answer</summary>
          <FieldErrorList errors={view.schema_errors} />
        </details>
      ) : null}
    </div>
  );
}

/**
 * The Configuration tab: GET /config, then the schema form or the plugin's embedded page. In iframe mode
 * the config is fetched again whenever the tab regains focus or visibility (a fresh rl_token is minted);
 * the iframe itself keeps its first URL. In schema mode it is fetched again only when asked (Refresh
 * schema, or a save invalidating it), and each new answer starts the form afresh from its values.
 */
export function ConfigurationTab() {
  const { guildId, roleId } = useLinkContext();
  const client = useQueryClient();
  const config = useQuery({
    ...queries.config(guildId, roleId),
    refetchOnWindowFocus: (q) => (q.state.data?.ui_mode === 'iframe' ? 'always' : false),
  });
  const [refreshing, setRefreshing] = useState(false);
  const view = config.data;
  const error = config.error;
  const busy = config.isFetching || refreshing;

  /** Refresh schema: the same entry, fetched past the broker's schema cache; a failure shows above the last form. */
  function refresh() {
    setRefreshing(true);
    client
      .fetchQuery(queries.config(guildId, roleId, true))
      .catch(() => undefined)
      .finally(() => setRefreshing(false));
  }

  if (!view) {
    if (config.isPending && !error) return <Loading label="Loading the plugin's configuration…" />;
    return (
      <>
        {error ? <ErrorBanner error={error} /> : <ErrorBanner message="The configuration could not be loaded." />}
        <div className="form-actions">
          <Button onClick={() => void config.refetch()} disabled={busy}>
            Try again
          </Button>
          <Button onClick={refresh} disabled={busy}>
            Refresh schema
          </Button>
        </div>
      </>
    );
  }

  return (
    <>
      {error ? <ErrorBanner error={error} /> : null}
      <FallbackNotice view={view} />
      {view.ui_mode === 'schema' ? (
        <>
          <div className={styles.toolbar}>
            <p className="muted small">
              {view.source === 'cache' ? 'Form cached from ' : 'Form fetched '}
              <DateTime iso={view.fetched_at} />
            </p>
            <Button size="small" onClick={refresh} disabled={busy}>
              {refreshing ? 'Refreshing…' : 'Refresh schema'}
            </Button>
          </div>
          <ConfigForm
            key={config.dataUpdatedAt}
            guildId={guildId}
            roleId={roleId}
            structure={view.schema}
            values={view.values}
            onSaved={() => void client.invalidateQueries({ queryKey: queryKeys.config(guildId, roleId) })}
          />
        </>
      ) : (
        <IframeConfig key="iframe" view={view} />
      )}
    </>
  );
}
