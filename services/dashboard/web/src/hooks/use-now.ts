import { useSyncExternalStore } from 'react';

/**
 * The time as React state, for what a render compares with "now" (is a held removal's one-hour window
 * still open?). Reading Date.now() during render would make the answer depend on when React happens to
 * render; this clock ticks every 15 s while anything shows it, and components re-render with it.
 */
const TICK_MS = 15_000;
let now = Date.now();
const listeners = new Set<() => void>();
let timer: number | undefined;

function subscribe(onTick: () => void): () => void {
  if (listeners.size === 0) {
    // The first viewer after a quiet spell: React compares this with what it rendered and re-renders if newer.
    now = Date.now();
    timer = window.setInterval(() => {
      now = Date.now();
      listeners.forEach((listener) => listener());
    }, TICK_MS);
  }
  listeners.add(onTick);
  return () => {
    listeners.delete(onTick);
    if (listeners.size === 0) window.clearInterval(timer);
  };
}

export function useNow(): number {
  return useSyncExternalStore(
    subscribe,
    () => now,
    () => now,
  );
}
