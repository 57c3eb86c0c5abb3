import type { PlatformShapeError } from './shape-error';

/**
 * What a service does with an answer of the wrong shape, besides failing the call: count it by route
 * (rolelink_platform_shape_errors_total) and log the route and field once per answer. Typed structurally
 * so this package needs no metrics or logging library.
 */
export function shapeErrorReporter(
  counter: { inc(labels: { route: string }): void },
  logger: { error(message: string, meta: Record<string, unknown>): void },
): (err: PlatformShapeError) => void {
  return (err) => {
    counter.inc({ route: `${err.method} ${err.route}` });
    logger.error('platform answer of the wrong shape: the call fails (docs/operations.md)', {
      error: err.message,
      field: err.field,
    });
  };
}
