import request from 'supertest';
import { silentLogger } from '@rolelink/runtime';
import { startApiHarness, auth, type ApiHarness } from '../../../test/support/api';
import { seedLink, userIds } from '../../../test/support/fixtures';
import { sweepOutbox } from '../src/outbox-sweep';
import { producerConnection, SyncNotifier } from '@rolelink/queue';
import { REDIS_URL } from '../../../test/support/redis';

// The API's Redis points at a port where nothing listens: every enqueue fails fast.
let h: ApiHarness;
beforeAll(async () => (h = await startApiHarness('redis://127.0.0.1:1')));
afterAll(() => h.close());

describe('writes while Redis is down (design: outbox)', () => {
  it('still succeed, stay marked, and are queued by the sweeper once Redis answers', async () => {
    const link = await seedLink(h.db);
    const url = `/api/role-link/${link.guildId}/${link.roleId}/users`;
    // Neither write waits for Redis (a hang would fail the test at Jest's timeout, on any machine).
    await request(h.app)
      .put(url)
      .set(auth(link.token))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(userIds(3)))
      .expect(200);
    await request(h.app)
      .post(`${url}/${userIds(4)[3]}`)
      .set(auth(link.token))
      .expect(200);
    const marked = await h.db.pool.query<{ wanted: boolean }>(
      'SELECT sync_wanted_seq > sync_done_seq AS wanted FROM role_link WHERE id = $1',
      [link.linkId],
    );
    expect(marked.rows[0]!.wanted).toBe(true);
    expect(await h.syncQueue.getWaitingCount()).toBe(0);

    // Redis is back (the sweeper's notifier talks to the real one).
    const redis = producerConnection(REDIS_URL);
    await new Promise((resolve) => redis.once('ready', resolve));
    const sync = new SyncNotifier(redis, h.prefix, silentLogger());
    expect(await sweepOutbox(h.db.pool, sync, silentLogger(), 0)).toBe(1);
    const jobs = await h.syncQueue.getJobs(['waiting']);
    expect(jobs.map((j): unknown => j.data)).toEqual([{ linkId: link.linkId }]);
    await sync.close();
    redis.disconnect();
  });
});
