// A steady POST /users/:userId load for scripts/deploy/rolling-restart.sh, through the load balancer:
//   ROLL_TOKEN=<link token> node --import tsx scripts/deploy/post-load.ts --base <url …/api/role-link/<guild>/<role>>
//     --rate 50 [--seconds 60] --first-id <snowflake> --ids 3000 --out <file.json>
// Open loop at a fixed rate: a request starts every 1/rate s whatever the earlier ones are doing, as
// independent plugins would send them, so a stalled API shows up as failures and latency instead of
// quietly lowering the load. Keep-alive connections, like the plugin SDK's. Runs for --seconds, or until
// SIGTERM/SIGINT when --seconds is 0; then waits for the requests in flight and writes the counts.
// A request fails when it gets no 2xx answer: another status, a connection error, or no answer in 10 s.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { call, makeAgent } from '../support/http';

const { values: opts } = parseArgs({
  options: {
    base: { type: 'string' },
    rate: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '0' },
    'first-id': { type: 'string' },
    ids: { type: 'string', default: '3000' },
    'timeout-ms': { type: 'string', default: '10000' },
    out: { type: 'string' },
  },
});
const token = process.env.ROLL_TOKEN;
if (!opts.base || !opts['first-id'] || !opts.out || !token) {
  console.error(
    'usage: ROLL_TOKEN=… post-load.ts --base <url> --first-id <snowflake> --out <file> [--rate 50] [--seconds 0] [--ids 3000]',
  );
  process.exit(2);
}
const rate = Number(opts.rate);
const seconds = Number(opts.seconds);
const ids = Number(opts.ids);
const firstId = BigInt(opts['first-id']);
const timeoutMs = Number(opts['timeout-ms']);
const base = opts.base.replace(/\/$/, '');
const out = opts.out;

// Enough sockets that a 10 s stall of one request does not hold back the next ones at this rate.
const agent = makeAgent(Math.max(16, Math.ceil((rate * timeoutMs) / 1000)));
const outcomes = new Map<string, number>();
const latencies: number[] = [];
const failures: { at: string; outcome: string }[] = [];
// Answers slower than 1 s, by the time their request started: shows whether a latency tail lines up
// with a container's stop or its first requests after a start.
const slow: { at: string; ms: number }[] = [];
let slowCount = 0;
let sent = 0;
let ok = 0;
let failed = 0;
const inFlight = new Set<Promise<void>>();

function record(outcome: string, good: boolean): void {
  outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  if (good) ok += 1;
  else {
    failed += 1;
    if (failures.length < 50) failures.push({ at: new Date().toISOString(), outcome });
  }
}

function one(i: number): void {
  // The demo guild's generated members, in turn: real members, so the writes start real syncs.
  const userId = (firstId + BigInt(i % ids)).toString();
  const at = new Date().toISOString();
  const p = call(agent, `${base}/users/${userId}`, {
    method: 'POST',
    headers: { authorization: `Token ${token}` },
    timeoutMs,
  })
    .then(
      (r) => {
        latencies.push(r.ms);
        if (r.ms > 1000) {
          slowCount += 1;
          if (slow.length < 200) slow.push({ at, ms: Math.round(r.ms) });
        }
        record(String(r.status), r.status >= 200 && r.status <= 299);
      },
      (err: NodeJS.ErrnoException) =>
        record(err.code ?? (/timed out/.test(err.message) ? 'timeout' : err.message), false),
    )
    .finally(() => inFlight.delete(p));
  inFlight.add(p);
}

async function main(): Promise<void> {
  const started = performance.now();
  let stopping = false;
  const stop = () => (stopping = true);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);

  // Each request is due at started + n/rate; sleeping in between with setTimeout drifts, so catch up on
  // whatever is due each time we wake (a late timer sends the missed requests at once, keeping the rate).
  while (!stopping && (seconds === 0 || performance.now() - started < seconds * 1000)) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate) + 1;
    while (sent < due) one(sent++);
    await new Promise((resolve) => setTimeout(resolve, Math.max(1, 1000 / rate / 2)));
  }
  const elapsed = (performance.now() - started) / 1000;
  while (inFlight.size > 0) await Promise.all([...inFlight]);
  agent.destroy();

  latencies.sort((a, b) => a - b);
  const pct = (q: number) =>
    latencies.length
      ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10
      : null;
  const summary = {
    seconds: Math.round(elapsed * 10) / 10,
    rate,
    sent,
    ok,
    failed,
    outcomes: Object.fromEntries([...outcomes.entries()].sort()),
    latency_ms: {
      p50: pct(0.5),
      p99: pct(0.99),
      max: latencies.length ? Math.round(latencies[latencies.length - 1]! * 10) / 10 : null,
    },
    failures,
    slow_over_1s: { count: slowCount, first: slow },
  };
  writeFileSync(out, JSON.stringify(summary, null, 2));
  console.log(
    `post-load: ${sent} POSTs in ${summary.seconds} s at ${rate}/s: ${ok} 2xx, ${failed} failed ${JSON.stringify(summary.outcomes)}`,
  );
}

void main();
