import { describeProductionConnections } from '../../../test/support/connection-defaults';
import { loadEnv } from './env';

describe('the bot worker env', () => {
  it('refuses to run in production without platform settings, naming them, instead of using the emulator', () => {
    expect(() =>
      loadEnv({
        NODE_ENV: 'production',
        DATABASE_URL: 'postgresql://db.example.com/rolelink',
        REDIS_URL: 'redis://redis.example.com:6379',
      }),
    ).toThrow(/PLATFORM_API_URL: must be set in production[\s\S]*PLATFORM_BOT_TOKEN: must be set in production/);
  });

  it('runs against the emulator by default outside production', () => {
    expect(loadEnv({})).toMatchObject({
      PLATFORM_API_URL: 'http://127.0.0.1:3900/api',
      PLATFORM_BOT_TOKEN: 'emulator-bot-token',
    });
  });
});

describe('the drift poll settings', () => {
  it('default to a poll every 30 s on a 4% share that may grow to 30%, and refuse a ceiling below the floor', () => {
    expect(loadEnv({})).toMatchObject({
      DRIFT_POLL_EVERY_MS: 30_000,
      DRIFT_POLL_SHARE: 0.04,
      DRIFT_POLL_MAX_SHARE: 0.3,
    });
    expect(() => loadEnv({ DRIFT_POLL_SHARE: '0.3', DRIFT_POLL_MAX_SHARE: '0.1' })).toThrow(
      /DRIFT_POLL_MAX_SHARE: must be at least DRIFT_POLL_SHARE \(0.3\)/,
    );
    expect(() => loadEnv({ DRIFT_POLL_EVERY_MS: '500' })).toThrow(
      /DRIFT_POLL_EVERY_MS must be 0 \(off\) or at least 1000/,
    );
  });
});

describe('the notifications’ budget share', () => {
  it('defaults to 10% that may grow to 30%, refuses a ceiling below the floor, and floors that leave the syncs under half', () => {
    expect(loadEnv({})).toMatchObject({ NOTIFY_SHARE: 0.1, NOTIFY_MAX_SHARE: 0.3 });
    expect(() => loadEnv({ NOTIFY_SHARE: '0.2', NOTIFY_MAX_SHARE: '0.1' })).toThrow(
      /NOTIFY_MAX_SHARE: must be at least NOTIFY_SHARE \(0.2\)/,
    );
    expect(() =>
      loadEnv({ NOTIFY_SHARE: '0.3', DRIFT_POLL_SHARE: '0.25', DRIFT_POLL_MAX_SHARE: '0.3', NOTIFY_MAX_SHARE: '0.3' }),
    ).toThrow(/NOTIFY_SHARE: DRIFT_POLL_SHARE \+ NOTIFY_SHARE must be at most 0.5/);
    expect(loadEnv({ NOTIFY_SHARE: '0.25', DRIFT_POLL_SHARE: '0.25', DRIFT_POLL_MAX_SHARE: '0.3' })).toMatchObject({
      NOTIFY_SHARE: 0.25,
    });
  });
});

describeProductionConnections('the bot worker', loadEnv);
