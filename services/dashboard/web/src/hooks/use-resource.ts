import { useCallback, useEffect, useRef, useState } from 'react';
import { isAbort } from '../api/client';

export type Resource<T> = {
  data: T | undefined;
  error: Error | undefined;
  /** True only for the first load (or after the key changed): background reloads keep showing `data`. */
  loading: boolean;
  /** Loads again without clearing `data`. A reload asked for while one is running runs once after it. */
  reload: () => Promise<void>;
  setData: (data: T) => void;
};

/**
 * Loads one API answer for the current `key` (e.g. the route's ids). A newer key or an unmount aborts
 * the older request, so a slow answer never overwrites a newer one.
 */
export function useResource<T>(load: (signal: AbortSignal) => Promise<T>, key: string): Resource<T> {
  const [state, setState] = useState<{ key: string; data?: T; error?: Error; loading: boolean }>({ key, loading: true });
  const loadRef = useRef(load);
  loadRef.current = load;
  const controllerRef = useRef<AbortController | null>(null);
  const inFlight = useRef(false);
  const again = useRef(false);

  const run = useCallback(
    async (isFirst: boolean) => {
      if (!isFirst && inFlight.current) {
        // The answer in flight may predate the change that asked for this reload: fetch once more after it.
        again.current = true;
        return;
      }
      again.current = false;
      controllerRef.current?.abort();
      const controller = new AbortController();
      controllerRef.current = controller;
      inFlight.current = true;
      try {
        const data = await loadRef.current(controller.signal);
        if (!controller.signal.aborted) setState({ key, data, loading: false });
      } catch (err) {
        if (isAbort(err) || controller.signal.aborted) return;
        const error = err instanceof Error ? err : new Error(String(err));
        // A failed background reload keeps the last good data and reports the error beside it.
        setState((s) => (s.key === key ? { ...s, error, loading: false } : { key, error, loading: false }));
      } finally {
        if (controllerRef.current === controller) {
          inFlight.current = false;
          if (again.current && !controller.signal.aborted) void run(false);
        }
      }
    },
    [key],
  );

  useEffect(() => {
    setState((s) => (s.key === key ? s : { key, loading: true }));
    void run(true);
    return () => controllerRef.current?.abort();
  }, [key, run]);

  const reload = useCallback(() => run(false), [run]);
  const setData = useCallback((data: T) => setState({ key, data, loading: false }), [key]);

  const current = state.key === key ? state : { key, loading: true };
  return { data: current.data, error: current.error, loading: current.loading && current.data === undefined, reload, setData };
}
