import { useEffect, useRef, useSyncExternalStore } from 'react';

function subscribe(onChange: () => void): () => void {
  document.addEventListener('visibilitychange', onChange);
  return () => document.removeEventListener('visibilitychange', onChange);
}

/** True while the browser tab is visible (Page Visibility API). */
export function usePageVisible(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => document.visibilityState === 'visible',
    () => true,
  );
}

/**
 * Calls `tick` every `intervalMs` while the tab is visible, and once right away when it becomes visible
 * again, so a card left in a background tab catches up as soon as it is looked at.
 */
export function usePolling(tick: () => void, intervalMs: number, enabled = true): void {
  const visible = usePageVisible();
  const tickRef = useRef(tick);
  tickRef.current = tick;
  const wasVisible = useRef(visible);

  useEffect(() => {
    if (!enabled || !visible) {
      wasVisible.current = visible;
      return;
    }
    if (!wasVisible.current) tickRef.current();
    wasVisible.current = true;
    const id = window.setInterval(() => tickRef.current(), intervalMs);
    return () => window.clearInterval(id);
  }, [enabled, visible, intervalMs]);
}
