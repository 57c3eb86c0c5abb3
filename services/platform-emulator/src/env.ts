import { envFields, parseEnv } from '@rolelink/runtime';
import { z } from 'zod';
import { DEFAULT_OPTIONS, type EmulatorOptions } from './options';

const positiveInt = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/** The standalone emulator's environment: the only place that reads process.env. */
export const emulatorEnvSchema = z.object({
  EMULATOR_PORT: envFields.port(3900),
  EMULATOR_HOST: z.string().min(1).default('127.0.0.1'),
  EMULATOR_BOT_TOKEN: z.string().min(1).default('emulator-bot-token'),
  EMULATOR_BOT_USER_ID: z
    .string()
    .regex(/^\d{17,20}$/)
    .optional(),
  EMULATOR_GLOBAL_PER_SEC: positiveInt(50),
  EMULATOR_ROLE_BUCKET_LIMIT: positiveInt(10),
  EMULATOR_ROLE_BUCKET_WINDOW_MS: positiveInt(10_000),
  EMULATOR_INVALID_THRESHOLD: positiveInt(10_000),
  EMULATOR_BAN_MS: z.coerce.number().int().min(0).default(3_600_000),
  EMULATOR_LATENCY_MS: z.coerce.number().int().min(0).default(0),
  /** Path of a seed JSON file (see README) loaded at start. */
  EMULATOR_SEED: z.string().min(1).optional(),
  /** The OAuth2 client the admin dashboard signs users in with. */
  /** The application's id, a snowflake as the platform's client ids are. */
  EMULATOR_OAUTH_CLIENT_ID: z
    .string()
    .regex(/^\d{17,20}$/, "must be a snowflake (17 to 20 digits), as the platform's application ids are")
    .default(DEFAULT_OPTIONS.oauth.clientId),
  EMULATOR_OAUTH_CLIENT_SECRET: z.string().min(1).max(200).default(DEFAULT_OPTIONS.oauth.clientSecret),
  /** The redirect URIs registered for the client, comma-separated: sign-in accepts exactly these. */
  EMULATOR_OAUTH_REDIRECT_URIS: z
    .string()
    .min(1)
    .default(DEFAULT_OPTIONS.oauth.redirectUris.join(','))
    .transform((v) =>
      v
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean),
    ),
  LOG_LEVEL: envFields.logLevel,
});

export type EmulatorEnv = z.infer<typeof emulatorEnvSchema>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): EmulatorEnv {
  return parseEnv(emulatorEnvSchema, source);
}

/** Options for startEmulator from the environment (the seed file is read by main). */
export function optionsFromEnv(env: EmulatorEnv): EmulatorOptions {
  return {
    port: env.EMULATOR_PORT,
    host: env.EMULATOR_HOST,
    botToken: env.EMULATOR_BOT_TOKEN,
    ...(env.EMULATOR_BOT_USER_ID ? { botUserId: env.EMULATOR_BOT_USER_ID } : {}),
    globalPerSecond: env.EMULATOR_GLOBAL_PER_SEC,
    roleBucket: { limit: env.EMULATOR_ROLE_BUCKET_LIMIT, windowMs: env.EMULATOR_ROLE_BUCKET_WINDOW_MS },
    invalidThreshold: env.EMULATOR_INVALID_THRESHOLD,
    banMs: env.EMULATOR_BAN_MS,
    latencyMs: env.EMULATOR_LATENCY_MS,
    oauth: {
      clientId: env.EMULATOR_OAUTH_CLIENT_ID,
      clientSecret: env.EMULATOR_OAUTH_CLIENT_SECRET,
      redirectUris: env.EMULATOR_OAUTH_REDIRECT_URIS,
    },
  };
}
