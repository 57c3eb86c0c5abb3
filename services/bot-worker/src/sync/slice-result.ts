/** What one slice of a link's sync answers (the job's return value), and the counter of its platform calls. */
export type SliceResult =
  { kind: 'done'; retryInMs?: number } | { kind: 'continue' } | { kind: 'yield'; delayMs: number; reason: string };

export type ChangeMetrics = { change(action: 'add' | 'remove', result: string): void };
