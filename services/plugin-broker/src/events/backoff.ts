import type { EventDeliveryOptions } from '../context';

/** The wait before retry `attempt` (1 = after the first failure): exponential, capped, with up to 10 % jitter. */
export function retryDelayMs(opts: Pick<EventDeliveryOptions, 'baseMs' | 'maxMs'>, attempt: number, random: () => number = Math.random): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(40, Math.max(0, attempt - 1)));
  return Math.round(exp + exp * 0.1 * random());
}
