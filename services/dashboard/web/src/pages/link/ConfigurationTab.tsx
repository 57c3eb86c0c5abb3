import type { ConfigView } from '@rolelink/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { isAbort } from '../../api/client';
import { dashboardApi } from '../../api/dashboard-api';
import { DateTime } from '../../components/DateTime';
import { ErrorBanner, FieldErrorList, Loading } from '../../components/ErrorState';
import { ConfigForm } from '../../config-form/ConfigForm';
import { IframeConfig } from '../../iframe/IframeConfig';
import { useLinkContext } from './link-context';

type Load = { refresh?: boolean; background?: boolean; resetForm?: boolean };

function FallbackNotice({ view }: { view: ConfigView }) {
  if (view.source !== 'fallback') return null;
  const why = view.fallback_reason === 'invalid_schema' ? 'returned an invalid schema' : 'could not be reached';
  return (
    <div className="banner banner-warning" role="status">
      <p className="banner-title">The plugin server {why}.</p>
      <p>
        The last known form (fetched <DateTime iso={view.fetched_at} />) is shown without the plugin's current values. Saving may fail until the plugin answers again.
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
 * the iframe itself keeps its first URL.
 */
export function ConfigurationTab() {
  const { guildId, roleId } = useLinkContext();
  const [view, setView] = useState<ConfigView | null>(null);
  const [formKey, setFormKey] = useState(0);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState<'initial' | 'refresh' | null>('initial');
  const inFlight = useRef<AbortController | null>(null);

  const load = useCallback(
    async ({ refresh = false, background = false, resetForm = true }: Load = {}) => {
      // Background refetches (focus, after save) never pile up; an explicit load replaces any in flight.
      if (background && inFlight.current) return;
      inFlight.current?.abort();
      const controller = new AbortController();
      inFlight.current = controller;
      if (!background) setBusy(refresh ? 'refresh' : 'initial');
      try {
        const next = await dashboardApi.config(guildId, roleId, { refresh, signal: controller.signal });
        setView(next);
        setError(null);
        if (resetForm) setFormKey((k) => k + 1);
      } catch (err) {
        if (!isAbort(err)) setError(err instanceof Error ? err : new Error(String(err)));
      } finally {
        if (inFlight.current === controller) {
          inFlight.current = null;
          setBusy(null);
        }
      }
    },
    [guildId, roleId],
  );

  useEffect(() => {
    setView(null);
    void load();
    return () => inFlight.current?.abort();
  }, [load]);

  const iframeMode = view?.ui_mode === 'iframe';
  useEffect(() => {
    if (!iframeMode) return;
    const again = () => {
      if (document.visibilityState === 'visible') void load({ background: true, resetForm: false });
    };
    document.addEventListener('visibilitychange', again);
    window.addEventListener('focus', again);
    return () => {
      document.removeEventListener('visibilitychange', again);
      window.removeEventListener('focus', again);
    };
  }, [iframeMode, load]);

  if (!view) {
    if (busy === 'initial' && !error) return <Loading label="Loading the plugin's configuration…" />;
    return (
      <>
        <ErrorBanner message={error?.message ?? 'The configuration could not be loaded.'} />
        <div className="form-actions">
          <button type="button" className="btn" onClick={() => void load()} disabled={busy !== null}>
            Try again
          </button>
          <button type="button" className="btn" onClick={() => void load({ refresh: true })} disabled={busy !== null}>
            Refresh schema
          </button>
        </div>
      </>
    );
  }

  return (
    <>
      {error ? <ErrorBanner message={error.message} /> : null}
      <FallbackNotice view={view} />
      {view.ui_mode === 'schema' ? (
        <>
          <div className="toolbar">
            <p className="muted small">
              {view.source === 'cache' ? 'Form cached from ' : 'Form fetched '}
              <DateTime iso={view.fetched_at} />
            </p>
            <button type="button" className="btn btn-small" onClick={() => void load({ refresh: true })} disabled={busy !== null}>
              {busy === 'refresh' ? 'Refreshing…' : 'Refresh schema'}
            </button>
          </div>
          <ConfigForm key={formKey} guildId={guildId} roleId={roleId} structure={view.schema} values={view.values} onSaved={() => void load({ background: false })} />
        </>
      ) : (
        <IframeConfig key="iframe" view={view} />
      )}
    </>
  );
}
