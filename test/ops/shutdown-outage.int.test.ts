import { productionEnv, startService, type RunningService, type ServiceName } from '../../scripts/service-process';
import { createTestDb, type TestDb } from '../support/db';
import { ownRedis, type OwnRedis } from '../support/own-redis';
import { testQueuePrefix } from '../support/redis';
import { tcpRelay, type TcpRelay } from '../support/tcp-relay';

// SIGTERM while Redis or PostgreSQL is down: each service stops within its drain window and exits 0, as
// without an outage, instead of waiting out the 25 s shutdown deadline and exiting 1. Nothing it accepted
// is lost by leaving early: a list write is committed in PostgreSQL before it is answered, and a queued
// job stays in Redis (an active one is taken again once its lock lapses).

const SERVICES: ServiceName[] = ['api', 'plugin-broker', 'bot-worker'];

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db.drop();
});

/** SIGTERMs the service and waits for it to exit by itself; the 25 s deadline would exit 1. */
async function terminate(service: RunningService): Promise<number | null> {
  process.kill(service.pid, 'SIGTERM');
  return service.exited;
}

describe.each(SERVICES)('%s stopped during an outage', (name) => {
  let redis: OwnRedis;
  let relay: TcpRelay;
  let service: RunningService | undefined;

  beforeEach(async () => {
    redis = await ownRedis();
    await redis.start();
    relay = await tcpRelay(Number(new URL(db.url).port || 5432));
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    await redis.kill();
    await relay.stop();
  });

  const start = () =>
    startService(name, 'tsx', {
      ...productionEnv(relay.via(db.url), redis.url, testQueuePrefix()),
      LOG_LEVEL: 'info',
      SHUTDOWN_DRAIN_MS: '200',
    });

  it('exits 0 on SIGTERM with Redis down', async () => {
    service = await start();
    await redis.kill();
    await service.logged(/redis down/);
    const code = await terminate(service);
    expect({ code, deadline: /shutdown deadline passed/.test(service.output()) }).toEqual({
      code: 0,
      deadline: false,
    });
    expect(service.output()).toMatch(/"message":"stopped"/);
  });

  it('exits 0 on SIGTERM with PostgreSQL down', async () => {
    service = await start();
    await relay.stop();
    const code = await terminate(service);
    expect({ code, deadline: /shutdown deadline passed/.test(service.output()) }).toEqual({
      code: 0,
      deadline: false,
    });
  });
});
