import { z } from 'zod';
import {
  ConfigError,
  drainMs,
  envFields,
  parseEnv,
  parseSecretKeys,
  PRODUCTION_DRAIN_MS,
  SECRET_KEY_REQUIRED,
  secretKeyring,
} from './env';

// A service-shaped schema: NODE_ENV, a secret, the platform settings and a plain URL.
const schema = z.object({
  NODE_ENV: envFields.nodeEnv,
  DATABASE_URL: envFields.databaseUrl,
  PLATFORM_API_URL: envFields.platformApiUrl,
  PLATFORM_BOT_TOKEN: envFields.platformBotToken,
  PLATFORM_OAUTH_CLIENT_SECRET: z.string().min(1),
  SHUTDOWN_DRAIN_MS: envFields.shutdownDrainMs,
});

const production = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgresql://rolelink:s3cret@db.example.com:5432/rolelink',
  PLATFORM_API_URL: 'https://discord.com/api',
  PLATFORM_BOT_TOKEN: 'MTAwMDAwMDAwMDAwMDAwMDAwMQ.Gabcde.0123456789abcdefghijklmnopqrstuvwxyzAB',
  PLATFORM_OAUTH_CLIENT_SECRET: 'abcdefghijklmnopqrstuvwxyz012345',
};

const problemsOf = (source: NodeJS.ProcessEnv): string => {
  try {
    parseEnv(schema, source);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('PLATFORM_API_URL', () => {
  const parsed = (value: string) =>
    parseEnv(schema, { PLATFORM_API_URL: value, PLATFORM_OAUTH_CLIENT_SECRET: 's' }).PLATFORM_API_URL;

  it("is the REST base without a version; the version Discord's docs print and a trailing slash are read as the base", () => {
    expect(parsed('https://discord.com/api')).toBe('https://discord.com/api');
    expect(parsed('https://discord.com/api/v10')).toBe('https://discord.com/api');
    expect(parsed('https://discord.com/api/v10/')).toBe('https://discord.com/api');
    expect(parsed('http://127.0.0.1:3900/api/')).toBe('http://127.0.0.1:3900/api');
  });

  it('refuses another API version, a query and a non-URL, saying what to set', () => {
    expect(problemsOf({ PLATFORM_API_URL: 'https://discord.com/api/v9' })).toMatch(
      /^ {2}PLATFORM_API_URL: names API version 9, but the product speaks version 10 only; give the base without a version \(https:\/\/discord\.com\/api\)$/m,
    );
    expect(problemsOf({ PLATFORM_API_URL: 'https://discord.com/api?v=10' })).toMatch(
      /^ {2}PLATFORM_API_URL: must be the REST base alone/m,
    );
    expect(problemsOf({ PLATFORM_API_URL: 'discord.com/api' })).toMatch(/^ {2}PLATFORM_API_URL: is not a URL/m);
  });

  it("counts the emulator's base with its version as the emulator's in production", () => {
    expect(problemsOf({ ...production, PLATFORM_API_URL: 'http://127.0.0.1:3900/api/v10' })).toMatch(
      /^ {2}PLATFORM_API_URL: is the local platform emulator's/m,
    );
  });
});

describe('parseEnv in production', () => {
  it('accepts real values', () => {
    expect(parseEnv(schema, production)).toMatchObject({ PLATFORM_API_URL: 'https://discord.com/api' });
  });

  it('refuses a placeholder in any variable, naming it', () => {
    expect(
      problemsOf({ ...production, DATABASE_URL: 'postgresql://rolelink:REPLACE_ME@REPLACE_ME:5432/rolelink' }),
    ).toMatch(/^ {2}DATABASE_URL: is a placeholder/m);
    expect(
      problemsOf({ ...production, PLATFORM_OAUTH_CLIENT_SECRET: 'REPLACE_ME_WITH_AT_LEAST_32_CHARACTERS' }),
    ).toMatch(/^ {2}PLATFORM_OAUTH_CLIENT_SECRET: is a placeholder/m);
    expect(problemsOf({ ...production, PLATFORM_BOT_TOKEN: '…' })).toMatch(
      /^ {2}PLATFORM_BOT_TOKEN: is a placeholder/m,
    );
  });

  it('refuses a secret shorter than 32 characters, naming it', () => {
    expect(problemsOf({ ...production, PLATFORM_OAUTH_CLIENT_SECRET: 'x'.repeat(31) })).toMatch(
      /^ {2}PLATFORM_OAUTH_CLIENT_SECRET: is too short for a secret \(31 characters, at least 32 in production\)$/m,
    );
  });

  it('refuses the platform settings when unset (their defaults are the emulator) or set to the emulator', () => {
    const { PLATFORM_API_URL: _url, PLATFORM_BOT_TOKEN: _token, ...unset } = production;
    const message = problemsOf(unset);
    expect(message).toMatch(/^ {2}PLATFORM_API_URL: must be set in production/m);
    expect(message).toMatch(/^ {2}PLATFORM_BOT_TOKEN: must be set in production/m);
    expect(problemsOf({ ...production, PLATFORM_API_URL: 'http://127.0.0.1:3900/api/' })).toMatch(
      /^ {2}PLATFORM_API_URL: is the local platform emulator's/m,
    );
    expect(problemsOf({ ...production, PLATFORM_BOT_TOKEN: 'emulator-bot-token' })).toMatch(
      /^ {2}PLATFORM_BOT_TOKEN: is the local platform emulator's/m,
    );
  });

  it('refuses the connection strings unset or at their local development default, naming them', () => {
    const { DATABASE_URL: _db, ...unset } = production;
    expect(problemsOf(unset)).toMatch(
      /^ {2}DATABASE_URL: must be set in production \(its default, "postgresql:\/\/postgres@127.0.0.1:5432\/rolelink", is a local development server's\)$/m,
    );
    expect(problemsOf({ ...production, DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/rolelink' })).toMatch(
      /^ {2}DATABASE_URL: is a local development server's default; production needs its own$/m,
    );
    expect(problemsOf({ ...production, DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/rolelink_prod' })).toBe('');
  });

  it('lists the production problems beside the schema problems', () => {
    const message = problemsOf({ ...production, PLATFORM_OAUTH_CLIENT_SECRET: '', PLATFORM_BOT_TOKEN: 'REPLACE_ME' });
    expect(message).toMatch(/^ {2}PLATFORM_OAUTH_CLIENT_SECRET: /m);
    expect(message).toMatch(/^ {2}PLATFORM_BOT_TOKEN: is a placeholder/m);
  });

  it('leaves development and tests on the local defaults', () => {
    expect(parseEnv(schema, { PLATFORM_OAUTH_CLIENT_SECRET: 'dev' })).toMatchObject({
      NODE_ENV: 'development',
      PLATFORM_API_URL: 'http://127.0.0.1:3900/api',
      PLATFORM_BOT_TOKEN: 'emulator-bot-token',
    });
    expect(parseEnv(schema, { NODE_ENV: 'test', PLATFORM_OAUTH_CLIENT_SECRET: 'REPLACE_ME' }).NODE_ENV).toBe('test');
  });

  it('does not apply to a schema without NODE_ENV (the CLI reads the platform settings only when given)', () => {
    const cli = z.object({ PLATFORM_BOT_TOKEN: z.string().optional() });
    expect(parseEnv(cli, { NODE_ENV: 'production' })).toEqual({});
  });
});

describe('drainMs', () => {
  it('is SHUTDOWN_DRAIN_MS when set, else the readiness window in production and 0 elsewhere', () => {
    expect(drainMs(parseEnv(schema, { ...production, SHUTDOWN_DRAIN_MS: '0' }))).toBe(0);
    expect(drainMs(parseEnv(schema, production))).toBe(PRODUCTION_DRAIN_MS);
    expect(drainMs(parseEnv(schema, { PLATFORM_OAUTH_CLIENT_SECRET: 'dev' }))).toBe(0);
  });
});

describe('ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS in production', () => {
  const withHosts = z.object({
    NODE_ENV: envFields.nodeEnv,
    ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: envFields.allowPrivatePluginHosts,
  });
  const attempt = (source: NodeJS.ProcessEnv): string => {
    try {
      parseEnv(withHosts, source);
      return '';
    } catch (err) {
      return (err as Error).message;
    }
  };

  it('is refused unless ROLELINK_I_UNDERSTAND_PRIVATE_PLUGIN_HOSTS=yes says it is meant', () => {
    const on = { NODE_ENV: 'production', ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: '10.0.0.5' };
    expect(attempt(on)).toMatch(
      /^ {2}ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: turns off the plugin hosts' SSRF defence for 10.0.0.5; production refuses it unless ROLELINK_I_UNDERSTAND_PRIVATE_PLUGIN_HOSTS=yes/m,
    );
    expect(attempt({ ...on, ROLELINK_I_UNDERSTAND_PRIVATE_PLUGIN_HOSTS: 'true' })).not.toBe('');
    expect(attempt({ ...on, ROLELINK_I_UNDERSTAND_PRIVATE_PLUGIN_HOSTS: 'yes' })).toBe('');
  });

  it('is accepted unset or empty in production, and set anywhere else', () => {
    expect(attempt({ NODE_ENV: 'production' })).toBe('');
    expect(attempt({ NODE_ENV: 'production', ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: ' ' })).toBe('');
    expect(attempt({ NODE_ENV: 'development', ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: '127.0.0.1' })).toBe('');
  });
});

describe('ConfigError', () => {
  it('names every bad variable once', () => {
    const strict = z.object({ A: z.string(), B: z.coerce.number(), C: z.string().url() }).refine(() => false, {
      path: ['A'],
      message: 'again',
      when: () => true,
    });
    let error: unknown;
    try {
      parseEnv(strict, { B: 'x', C: 'no' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual(['A', 'B', 'C']);
    expect((error as ConfigError).problems).toHaveLength(4);
  });
});

describe('token keys', () => {
  const hex = 'ab'.repeat(32);
  const b64 = Buffer.alloc(32, 3).toString('base64');
  const keyed = z
    .object({ ROLELINK_SECRET_KEY: envFields.secretKey.optional(), ROLELINK_SECRET_KEYS: envFields.secretKeys })
    .refine(...SECRET_KEY_REQUIRED);

  it('ROLELINK_SECRET_KEY alone is one key without ID, as before key IDs', () => {
    expect(secretKeyring(parseEnv(keyed, { ROLELINK_SECRET_KEY: hex })).keys).toEqual([
      { id: null, key: Buffer.from(hex, 'hex') },
    ]);
  });

  it('ROLELINK_SECRET_KEYS lists keys newest first, then ROLELINK_SECRET_KEY unless it is listed', () => {
    const env = parseEnv(keyed, { ROLELINK_SECRET_KEYS: `k2:${b64}, k1:${hex}`, ROLELINK_SECRET_KEY: hex });
    expect(secretKeyring(env).keys.map((k) => k.id)).toEqual(['k2', 'k1']);
    const other = 'cd'.repeat(32);
    expect(secretKeyring({ ...env, ROLELINK_SECRET_KEY: other }).keys.map((k) => k.id)).toEqual(['k2', 'k1', null]);
  });

  it('names every problem of ROLELINK_SECRET_KEYS', () => {
    expect(parseSecretKeys(`k1:${hex},k1:${b64},nokey,bad id:${hex},k3:short`).problems).toEqual([
      'key ID k1 appears twice',
      'entry 3 has no valid key ID (id:key; an ID is 1-32 of A-Z a-z 0-9 _ . -)',
      'key of entry 3 must be 32 bytes as 64 hex characters or base64',
      'entry 4 has no valid key ID (id:key; an ID is 1-32 of A-Z a-z 0-9 _ . -)',
      'key k3 must be 32 bytes as 64 hex characters or base64',
    ]);
  });

  it('requires one of the two, beside every other problem', () => {
    expect(() => parseEnv(keyed, {})).toThrow(/ROLELINK_SECRET_KEY: is required/);
    expect(() => parseEnv(keyed, { ROLELINK_SECRET_KEYS: 'k1:short' })).toThrow(
      /ROLELINK_SECRET_KEYS: key k1 must be 32 bytes/,
    );
  });
});
