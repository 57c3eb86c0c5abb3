/**
 * The one backoff rule: the wait before retry step `n` (0 for the first retry) is
 * `firstMs · 2^n`, capped at `maxMs`, optionally spread by jitter. Every part that retries uses it with
 * its own numbers, defined beside it: a failed role call and a link without permission (packages/db), an
 * unreachable guild's probes, event delivery to plugins (plugin broker), the job schedulers' registration
 * (packages/queue), the bot token's 401s (platform-client) and the plugin SDK's HTTP retries. It sits
 * beside the wire's types because the SDK bundles this package into its npm package (scripts/build.mjs),
 * so the SDK's retries follow the same rule without a run-time dependency. Imported through
 * `@rolelink/wire-types/backoff`, so the package's index stays types only.
 *
 * Parts that count their attempts in PostgreSQL or Redis compute the wait in the same statement or script
 * that counts, so the count and the wait cannot disagree under concurrency: `backoffExpression` writes
 * this same formula in SQL or Redis Lua, so there is one rule to find and change.
 */
export type Backoff = {
  /** The first wait (step 0). */
  firstMs: number;
  /** The longest wait, before jitter. */
  maxMs: number;
  /**
   * `'full'`: a uniform wait in [0, step) ("full jitter": many clients retrying at once spread out);
   * a fraction `f`: the step plus up to `f` of it (never shorter than the step); none when absent.
   */
  jitter?: 'full' | number;
};

/** Doublings past this are past every cap; bounding them keeps `firstMs · 2^n` finite for any step. */
const MAX_DOUBLINGS = 40;

/** The wait before retry step `step` (0-based; below 0 counts as 0), in milliseconds. */
export function backoffMs(b: Backoff, step: number, random: () => number = Math.random): number {
  const capped = Math.min(b.maxMs, b.firstMs * 2 ** Math.min(MAX_DOUBLINGS, Math.max(0, step)));
  if (b.jitter === undefined) return capped;
  if (b.jitter === 'full') return Math.floor(random() * capped);
  return Math.round(capped + capped * b.jitter * random());
}

const DIALECTS = {
  sql: { least: 'LEAST', greatest: 'GREATEST', pow: 'power' },
  lua: { least: 'math.min', greatest: 'math.max', pow: 'math.pow' },
} as const;

/** A number, or an expression of the dialect that yields one (e.g. `tonumber(ARGV[4])`). */
type Operand = number | string;

/**
 * `backoffMs` without jitter, as an expression of `step` (an expression of the dialect) in PostgreSQL's
 * SQL or Redis's Lua, in milliseconds. Numbers are written as literals; a number that is not finite is
 * refused rather than written as `NaN` into a statement.
 */
export function backoffExpression(
  dialect: keyof typeof DIALECTS,
  b: { firstMs: Operand; maxMs: Operand },
  step: string,
): string {
  const d = DIALECTS[dialect];
  const operand = (v: Operand): string => {
    if (typeof v === 'string') return v;
    if (!Number.isFinite(v)) throw new Error(`backoff parameter must be a finite number, got ${v}`);
    return String(v);
  };
  return `${d.least}(${operand(b.maxMs)}, ${operand(b.firstMs)} * ${d.pow}(2, ${d.least}(${MAX_DOUBLINGS}, ${d.greatest}(0, ${step}))))`;
}
