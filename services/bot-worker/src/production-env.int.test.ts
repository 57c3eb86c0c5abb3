import { startService, type RunningService } from '../../../scripts/service-process';
import { REDIS_URL, testQueuePrefix } from '../../../test/support/redis';
import { ADMIN_DATABASE_URL } from '../../../test/support/env';

// In production the bot worker must not start with no platform settings at all (it would run against
// the emulator's URL and token). As its own process it must exit non-zero, naming the variables.
describe('the bot worker process in production', () => {
  let started: RunningService | undefined;

  afterAll(async () => {
    await started?.stop();
  });

  it('exits non-zero at start naming PLATFORM_API_URL and PLATFORM_BOT_TOKEN when they are unset', async () => {
    // The child inherits this process's environment: with no platform settings in it, they are unset.
    expect([process.env.PLATFORM_API_URL, process.env.PLATFORM_BOT_TOKEN]).toEqual([undefined, undefined]);
    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: ADMIN_DATABASE_URL,
      REDIS_URL,
      QUEUE_PREFIX: testQueuePrefix(),
    };
    const outcome = await startService('bot-worker', 'tsx', env).then(
      (s) => {
        started = s;
        return 'started';
      },
      (err: Error) => err.message,
    );
    expect(outcome).toMatch(/exited during start-up with code [1-9]/);
    expect(outcome).toMatch(/PLATFORM_API_URL: must be set in production/);
    expect(outcome).toMatch(/PLATFORM_BOT_TOKEN: must be set in production/);
  });
});
