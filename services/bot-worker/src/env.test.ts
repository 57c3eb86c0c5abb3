import { loadEnv } from './env';

describe('the bot worker env', () => {
  it('refuses to run in production without platform settings, naming them, instead of using the emulator', () => {
    expect(() => loadEnv({ NODE_ENV: 'production', DATABASE_URL: 'postgresql://db.example.com/rolelink', REDIS_URL: 'redis://redis.example.com:6379' })).toThrow(
      /PLATFORM_API_URL: must be set in production[\s\S]*PLATFORM_BOT_TOKEN: must be set in production/,
    );
  });

  it('runs against the emulator by default outside production', () => {
    expect(loadEnv({})).toMatchObject({ PLATFORM_API_URL: 'http://127.0.0.1:3900/api', PLATFORM_BOT_TOKEN: 'emulator-bot-token' });
  });
});
