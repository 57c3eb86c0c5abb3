// The POST figure's same-run baseline: a bare `node:http` server doing the API's single-user
// write and nothing else — no Express, no authentication, no rate limiter, no request log, no queue.
// Run as its own process, like the API, by bench/support/api-process.ts startBarePostServer().
//
// What it shares with the API, on purpose: the statement (db addUsers: link row locked, row inserted,
// counter and outbox marker bumped, one list_change journal row, one implicit transaction), the group
// commit of concurrent adds of one link (services/api add-batcher.ts, with a sync notifier that does
// nothing), the pg pool (createDb, DB_POOL_MAX 20 as the API's default) and the answer's JSON body. So the
// ratio API ÷ baseline is the cost of what the API does around the write.
//
// Route: POST /bare/:linkId/users/:userId → 200 {"data":{"added":…}}; anything else 404.
import http from 'node:http';
import { createDb } from '@rolelink/db/client';
import { limitsFor } from '@rolelink/domain';
import { AddBatcher } from '../../services/api/src/add-batcher';
import type { SyncNotifier } from '@rolelink/queue';

const ROUTE = /^\/bare\/(\d{1,19})\/users\/(\d{17,20})$/;

const url = process.env.DATABASE_URL;
const port = Number(process.env.BARE_PORT);
if (!url || !Number.isInteger(port)) throw new Error('DATABASE_URL and BARE_PORT are required');

const db = createDb(url, { max: Number(process.env.DB_POOL_MAX ?? 20) });
const noQueue = { notify: () => Promise.resolve() } as unknown as SyncNotifier;
const adds = new AddBatcher({ pool: db.pool, sync: noQueue });
const storedLimit = limitsFor('premium').storedUsers;

const server = http.createServer((req, res) => {
  const m = req.method === 'POST' ? ROUTE.exec(req.url ?? '') : null;
  if (!m) {
    if (req.url === '/ready') return void res.end('ok');
    res.statusCode = 404;
    return void res.end();
  }
  adds.add(m[1]!, m[2]!, storedLimit).then(
    (r) => {
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.end(JSON.stringify({ data: { added: r.added } }));
    },
    () => {
      res.statusCode = 500;
      res.end();
    },
  );
});
server.keepAliveTimeout = 65_000;
server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => void db.close().then(() => process.exit(0)));
  server.closeAllConnections();
});
