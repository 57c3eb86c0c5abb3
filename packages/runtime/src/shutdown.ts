import type { Logger } from './logger';

type Step = { name: string; run: () => unknown }; // a promise is awaited

/**
 * Graceful shutdown on SIGTERM/SIGINT: runs the steps in order (drain HTTP with serve().drain(), finish
 * in-flight work, close queues, disconnect the database) under one deadline, logs 'stopped' and exits 0;
 * past the deadline it exits 1. Safe to trigger twice. docs/operations.md, "Shutdown and draining".
 */
export function onShutdown(logger: Logger, steps: Step[], deadlineMs = 25_000): () => Promise<void> {
  let running: Promise<void> | null = null;
  const shutdown = (): Promise<void> => {
    running ??= (async () => {
      logger.info('shutting down');
      const timer = setTimeout(() => {
        logger.error('shutdown deadline passed; exiting');
        process.exit(1);
      }, deadlineMs);
      timer.unref();
      for (const step of steps) {
        try {
          await step.run();
        } catch (err) {
          logger.warn(`shutdown step failed: ${step.name}`, { err });
        }
      }
      logger.info('stopped');
    })();
    return running;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void shutdown().then(() => process.exit(0)));
  }
  return shutdown;
}
