import { Redis } from 'ioredis';
import { Client } from 'pg';
import { ADMIN_DATABASE_URL, REDIS_URL } from '../../../test/support/env';
import { backoffExpression, backoffMs } from './backoff';

// The repositories (SQL) and the rate limiter (Redis Lua) compute the backoff in the statement that counts
// the attempt. Here PostgreSQL and Redis evaluate the expression they are given for every step from below
// 0 to past the exponent's bound, and must agree with backoffMs to the millisecond. Read-only: a SELECT
// and an EVAL that touches no key.
const STEPS = Array.from({ length: 50 }, (_, i) => i - 2);
const cases = [
  { firstMs: 30_000, maxMs: 3_600_000 },
  { firstMs: 250, maxMs: 10_000 },
  { firstMs: 7, maxMs: 2 ** 52 },
];

describe('the backoff rule in SQL and Lua', () => {
  it.each(cases)('PostgreSQL computes what backoffMs does (first %p)', async (b) => {
    const pg = new Client({ connectionString: ADMIN_DATABASE_URL });
    await pg.connect();
    try {
      const { rows } = await pg.query<{ ms: number }>(
        `SELECT (${backoffExpression('sql', b, 'step')})::float8 AS ms FROM unnest($1::int[]) WITH ORDINALITY AS s(step, i) ORDER BY i`,
        [STEPS],
      );
      expect(rows.map((r) => r.ms)).toEqual(STEPS.map((n) => backoffMs(b, n)));
    } finally {
      await pg.end();
    }
  });

  it.each(cases)('Redis Lua computes what backoffMs does, from ARGV (first %p)', async (b) => {
    const redis = new Redis(REDIS_URL, { lazyConnect: true });
    await redis.connect();
    try {
      // Lua numbers are doubles; a reply integer drops a fraction, so the script answers strings.
      const script = `local out = {}
for i, s in ipairs(ARGV) do
  if i > 2 then
    local n = tonumber(s)
    out[#out + 1] = string.format('%.0f', ${backoffExpression('lua', { firstMs: 'tonumber(ARGV[1])', maxMs: 'tonumber(ARGV[2])' }, 'n')})
  end
end
return out`;
      const answer = (await redis.eval(script, 0, b.firstMs, b.maxMs, ...STEPS)) as string[];
      expect(answer.map(Number)).toEqual(STEPS.map((n) => backoffMs(b, n)));
    } finally {
      redis.disconnect();
    }
  });
});
