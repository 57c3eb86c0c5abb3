import { z } from 'zod';
import { platformApiBase } from './platform-api-url';
import { clusterPrefixProblem, parseRedisUrl } from './redis-url';

/**
 * Parses a service's environment once, at start (design: only a service's env.ts reads process.env).
 * Fails fast with every problem listed, never with a half-configured process. A schema that declares
 * NODE_ENV (every service) also gets the production rules below when NODE_ENV is production.
 */
export function parseEnv<S extends z.ZodType>(schema: S, source: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(source);
  const declared = declaredVariables(schema);
  const problems = [
    ...(result.success ? [] : result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`)),
    ...(declared.includes('NODE_ENV') && source.NODE_ENV === 'production' ? productionProblems(declared, source) : []),
    ...(result.success && declared.includes('REDIS_URL') && declared.includes('QUEUE_PREFIX')
      ? clusterProblems(result.data as Record<string, unknown>)
      : []),
  ];
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  return result.data;
}

/**
 * The environment a service was started with is wrong. `problems` are `VARIABLE: what is wrong`, one per
 * problem; the message lists them one per line (what a test or the CLI shows), runMain() logs them as
 * one structured line.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }

  /** Every variable named by a problem, once, in the order first named. */
  get variables(): string[] {
    return [...new Set(this.problems.map((p) => p.slice(0, p.indexOf(':')).split('.')[0]!))];
  }
}

/** The variables a schema declares (its object's keys; a refined object's too). */
function declaredVariables(schema: z.ZodType): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/**
 * Every variable parseEnv(schema) reads: the schema's own, and the acknowledgement the production rule
 * asks for beside ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS. docs/configuration.md lists exactly these per service
 * (test/docs/configuration-reference.test.ts).
 */
export function envVariables(schema: z.ZodType): string[] {
  const declared = declaredVariables(schema);
  const ack = declared.includes('NODE_ENV') && declared.includes('ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS');
  return ack ? [...declared, PRIVATE_PLUGIN_HOSTS_ACK] : declared;
}

/** REDIS_URL and QUEUE_PREFIX together: a cluster needs a hash-tagged prefix (redis-url.ts). */
function clusterProblems(env: Record<string, unknown>): string[] {
  const problem = clusterPrefixProblem(String(env.REDIS_URL), String(env.QUEUE_PREFIX));
  return problem === null ? [] : [problem];
}

/**
 * Values that mean "fill this in": the placeholders of k8s/secret.example.yaml and k8s/configmap.yaml
 * (`REPLACE_ME…`), their usual spellings, and the `…` of the kubectl example in the Secret's comment.
 */
const PLACEHOLDER = /REPLACE[_-]?ME|CHANGE[_-]?ME|…/i;

/** Shortest secret production accepts (an OAuth2 client secret of the platform is 32 characters, a bot token longer). */
export const PRODUCTION_SECRET_MIN_LENGTH = 32;

/** The variables holding secrets, whichever service declares them. ROLELINK_SECRET_KEY is checked as a key (32 bytes) by its field. */
const SECRETS = ['DASHBOARD_SESSION_SECRET', 'PLATFORM_OAUTH_CLIENT_SECRET', 'PLATFORM_BOT_TOKEN'];

/** Development defaults that point at the platform emulator (README, "What runs locally"). */
export const EMULATOR_DEFAULTS = {
  PLATFORM_API_URL: 'http://127.0.0.1:3900/api',
  PLATFORM_BOT_TOKEN: 'emulator-bot-token',
} as const;

/** Development defaults of the connection strings: this machine's PostgreSQL and Redis (README, "What runs locally"). */
export const LOCAL_CONNECTION_DEFAULTS = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/rolelink',
  REDIS_URL: 'redis://127.0.0.1:6379',
} as const;

/**
 * Every development default production must not run on, with whose it is. A production process that
 * fell back to one would start (and even answer ready, against a local server or the emulator) while
 * serving nothing real (the platform settings and the connection strings alike).
 */
const LOCAL_DEFAULTS: Record<string, { value: string; whose: string }> = {
  PLATFORM_API_URL: { value: EMULATOR_DEFAULTS.PLATFORM_API_URL, whose: "the local platform emulator's" },
  PLATFORM_BOT_TOKEN: { value: EMULATOR_DEFAULTS.PLATFORM_BOT_TOKEN, whose: "the local platform emulator's" },
  DATABASE_URL: { value: LOCAL_CONNECTION_DEFAULTS.DATABASE_URL, whose: "a local development server's" },
  REDIS_URL: { value: LOCAL_CONNECTION_DEFAULTS.REDIS_URL, whose: "a local development server's" },
};

/**
 * The production rule, once for every service: no placeholder in any variable the service reads, no
 * secret shorter than PRODUCTION_SECRET_MIN_LENGTH, and no development default (LOCAL_DEFAULTS: the
 * emulator's platform settings, the local connection strings), whether unset or spelled out. Each
 * problem names its variable. Checked on the raw values, before defaults apply.
 */
export function productionProblems(declared: readonly string[], source: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const privateHosts = (source.ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS ?? '').trim();
  if (declared.includes('ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS') && privateHosts !== '') {
    if (source[PRIVATE_PLUGIN_HOSTS_ACK] !== 'yes')
      problems.push(
        `ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS: turns off the plugin hosts' SSRF defence for ${privateHosts}; production refuses it unless ${PRIVATE_PLUGIN_HOSTS_ACK}=yes says it is meant`,
      );
  }
  for (const name of declared) {
    const value = source[name];
    if (value !== undefined && PLACEHOLDER.test(value))
      problems.push(`${name}: is a placeholder; set the real value (NODE_ENV=production)`);
    else if (SECRETS.includes(name) && value !== undefined && value.length < PRODUCTION_SECRET_MIN_LENGTH) {
      problems.push(
        `${name}: is too short for a secret (${value.length} characters, at least ${PRODUCTION_SECRET_MIN_LENGTH} in production)`,
      );
    }
    const local = LOCAL_DEFAULTS[name];
    if (local) {
      if (value === undefined || value === '')
        problems.push(
          `${name}: must be set in production (its default, ${JSON.stringify(local.value)}, is ${local.whose})`,
        );
      else if (sameSetting(name, value, local.value))
        problems.push(`${name}: is ${local.whose} default; production needs its own`);
    }
  }
  return problems;
}

/** Whether `value` is `local` spelled another way: a trailing slash, or the platform base with its version. */
function sameSetting(name: string, value: string, local: string): boolean {
  if (name !== 'PLATFORM_API_URL') return value.replace(/\/+$/, '') === local;
  const read = platformApiBase(value);
  return 'base' in read && read.base === local;
}

/**
 * The second, explicit setting production needs before it accepts ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS:
 * that list lets plugin calls reach private addresses (the cluster's own services, cloud metadata), so
 * one variable copied from a local setup must not turn the defence off in production.
 */
export const PRIVATE_PLUGIN_HOSTS_ACK = 'ROLELINK_I_UNDERSTAND_PRIVATE_PLUGIN_HOSTS';

/** Reusable env fields, so every service spells the shared settings the same way. */
export const envFields = {
  nodeEnv: z.enum(['development', 'test', 'production']).default('development'),
  logLevel: z.enum(['error', 'warn', 'info', 'http', 'debug']).default('info'),
  databaseUrl: z.string().url().default(LOCAL_CONNECTION_DEFAULTS.DATABASE_URL),
  /**
   * PostgreSQL itself, for session-bound work (advisory locks held across statements), when DATABASE_URL is
   * a transaction-mode pooler (`?pgbouncer=true`); unset, DATABASE_URL serves both (docs/pgbouncer.md).
   */
  databaseSessionUrl: z
    .string()
    .url()
    .optional()
    .transform((v) => v || undefined),
  /** One Redis (redis://, rediss://) or a Redis Cluster (redis+cluster://host:port,…; redis-url.ts). */
  redisUrl: z
    .string()
    .default(LOCAL_CONNECTION_DEFAULTS.REDIS_URL)
    .superRefine((value, ctx) => {
      try {
        parseRedisUrl(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    }),
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  /**
   * The platform's REST base without a version (`https://discord.com/api`; the client appends /v10); locally
   * the emulator's. `…/api/v10` is read as `…/api`, another version refused (platform-api-url.ts).
   */
  platformApiUrl: z.string().default(EMULATOR_DEFAULTS.PLATFORM_API_URL).transform(platformApiUrlOrIssue),
  /** PLATFORM_API_URL where a process may run without a platform (the CLI). */
  optionalPlatformApiUrl: z
    .string()
    .optional()
    .transform((v, ctx) => (v === undefined ? v : platformApiUrlOrIssue(v, ctx))),
  /** The bot's token (secret); locally the emulator's. */
  platformBotToken: z.string().min(1).default(EMULATOR_DEFAULTS.PLATFORM_BOT_TOKEN),
  /** 32-byte key as 64 hex chars or base64; tokens are stored encrypted under it (AES-256-GCM). */
  secretKey: z.string().refine((v) => decodeKey(v) !== null, 'must be 32 bytes as 64 hex characters or base64'),
  /**
   * Several keys with IDs, newest first: `k2:<key>,k1:<key>` (each key as for ROLELINK_SECRET_KEY). The
   * first encrypts and its ID is stored with what it encrypts; every one decrypts. See secretKeyring().
   */
  secretKeys: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined) return;
      for (const problem of parseSecretKeys(value).problems) ctx.addIssue({ code: 'custom', message: problem });
    }),
  /** Comma-separated host names or IPs that may be plugin hosts despite being private (tests, local runs). */
  allowPrivatePluginHosts: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  queuePrefix: z.string().default('rolelink'),
  /**
   * How long a SIGTERMed service keeps serving (answering /readyz 503) before it stops listening. Unset:
   * PRODUCTION_DRAIN_MS in production, 0 elsewhere (local runs and tests stop at once); see drainMs().
   * At most 20 s, inside the 25 s shutdown deadline.
   */
  shutdownDrainMs: z.coerce.number().int().min(0).max(20_000).optional(),
  /** How many days a table's retention sweep keeps a row (AUDIT_, NOTIFICATION_, EVENT_RETENTION_DAYS): 1–3650. */
  retentionDays: (fallback: number) => z.coerce.number().int().min(1).max(3650).default(fallback),
  /**
   * How often a service's retention sweep runs (RETENTION_SWEEP_EVERY_MS; its scheduler, once per interval
   * across replicas). Rows past retention wait at most this long more; 0 leaves the scheduler alone.
   */
  retentionSweepEveryMs: z.coerce.number().int().min(0).default(600_000),
};

function platformApiUrlOrIssue(value: string, ctx: z.RefinementCtx): string {
  const read = platformApiBase(value);
  if ('base' in read) return read.base;
  ctx.addIssue({ code: 'custom', message: read.problem });
  return z.NEVER;
}

/**
 * The readiness probe's period × failure threshold in k8s/*.yaml (5 s × 2): after this long a probe has
 * seen the 503 and every load balancer has stopped sending new connections to the pod.
 */
export const PRODUCTION_DRAIN_MS = 10_000;

/** The drain window of a parsed env: SHUTDOWN_DRAIN_MS, or its default for NODE_ENV. */
export function drainMs(env: { NODE_ENV: string; SHUTDOWN_DRAIN_MS?: number | undefined }): number {
  return env.SHUTDOWN_DRAIN_MS ?? (env.NODE_ENV === 'production' ? PRODUCTION_DRAIN_MS : 0);
}

export function decodeKey(value: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  const b = Buffer.from(value, 'base64');
  return b.length === 32 ? b : null;
}

/** One configured token key (structurally @rolelink/domain's TokenKey): id null is ROLELINK_SECRET_KEY's. */
export type SecretKeyEntry = { id: string | null; key: Buffer };

const SECRET_KEY_ID = /^[A-Za-z0-9_.-]{1,32}$/;

/** ROLELINK_SECRET_KEYS (`id:key,id:key`, newest first) as keys, with every problem in it. */
export function parseSecretKeys(value: string): { keys: SecretKeyEntry[]; problems: string[] } {
  const keys: SecretKeyEntry[] = [];
  const problems: string[] = [];
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) problems.push('lists no key (expected id:key,id:key, newest first)');
  entries.forEach((entry, i) => {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : '';
    const key = colon > 0 ? decodeKey(entry.slice(colon + 1)) : null;
    if (!SECRET_KEY_ID.test(id))
      problems.push(`entry ${i + 1} has no valid key ID (id:key; an ID is 1-32 of A-Z a-z 0-9 _ . -)`);
    else if (keys.some((k) => k.id === id)) problems.push(`key ID ${id} appears twice`);
    if (!key) problems.push(`key ${id || `of entry ${i + 1}`} must be 32 bytes as 64 hex characters or base64`);
    if (key && SECRET_KEY_ID.test(id)) keys.push({ id, key });
  });
  return { keys, problems };
}

/**
 * The token keys a service encrypts and decrypts with, newest first: ROLELINK_SECRET_KEYS' keys, then
 * ROLELINK_SECRET_KEY's (without ID) unless the same key is already listed. ROLELINK_SECRET_KEY alone keeps
 * working as it always did. Empty when neither is set (the CLI; services require one, requireSecretKey).
 */
export function secretKeyring(env: {
  ROLELINK_SECRET_KEY?: string | undefined;
  ROLELINK_SECRET_KEYS?: string | undefined;
}): {
  keys: SecretKeyEntry[];
} {
  const keys = env.ROLELINK_SECRET_KEYS ? parseSecretKeys(env.ROLELINK_SECRET_KEYS).keys : [];
  const single = env.ROLELINK_SECRET_KEY ? decodeKey(env.ROLELINK_SECRET_KEY) : null;
  if (single && !keys.some((k) => k.key.equals(single))) keys.push({ id: null, key: single });
  return { keys };
}

/**
 * For the services that hold tokens: `schema.refine(...SECRET_KEY_REQUIRED)` asks for one of the two key
 * settings. `when` makes it run even when other variables are wrong, so the error lists them all.
 */
type KeySettings = { ROLELINK_SECRET_KEY?: string | undefined; ROLELINK_SECRET_KEYS?: string | undefined };
export const SECRET_KEY_REQUIRED: [
  (env: KeySettings) => boolean,
  { path: string[]; message: string; when: () => boolean },
] = [
  (env) => Boolean(env.ROLELINK_SECRET_KEY || env.ROLELINK_SECRET_KEYS),
  {
    path: ['ROLELINK_SECRET_KEY'],
    message: 'is required (32 bytes as 64 hex characters or base64), or ROLELINK_SECRET_KEYS with key IDs',
    when: () => true,
  },
];
