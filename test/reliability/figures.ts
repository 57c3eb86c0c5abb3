import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/**
 * The reliability suite's figures: one line each on stdout (plain, so it reads in CI logs without Jest's
 * console stack traces) and appended to `.data/reliability-figures.jsonl`, from which docs/reliability.md
 * is filled in.
 */
export type Figure = { scenario: string; name: string; value: number | string; goal?: string; met?: boolean };

const FILE = path.join(__dirname, '..', '..', '.data', 'reliability-figures.jsonl');

/** `full` under `pnpm test:reliability`; the README's test command runs the `smoke` subset. */
export const SCALE: 'smoke' | 'full' = process.env.RELIABILITY_SCALE === 'full' ? 'full' : 'smoke';

export function report(figures: Figure[]): void {
  mkdirSync(path.dirname(FILE), { recursive: true });
  const at = new Date().toISOString();
  for (const f of figures) {
    const verdict = f.met === undefined ? '' : f.met ? '  ok' : '  MISSED';
    process.stdout.write(
      `[reliability:${SCALE}] ${f.scenario} · ${f.name}: ${f.value}${f.goal ? ` (goal ${f.goal})` : ''}${verdict}\n`,
    );
    appendFileSync(FILE, `${JSON.stringify({ at, scale: SCALE, ...f })}\n`);
  }
}
