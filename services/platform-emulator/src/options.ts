import type { Logger } from '@rolelink/runtime';
import { z } from 'zod';
import type { WindowSpec } from './fixed-window';
import type { EmulatorSeed } from './seed';

/**
 * The one OAuth2 application the emulator knows (the admin dashboard). `clientId` is the application's
 * id, a snowflake as on the platform. `redirectUris` are the URIs registered for it (the developer
 * portal's OAuth2 → Redirects): an authorization whose redirect_uri is not exactly one of them is refused.
 */
export type OAuthClient = { clientId: string; clientSecret: string; redirectUris?: string[] };

export type EmulatorOptions = {
  port?: number;
  host?: string;
  botToken?: string;
  botUserId?: string;
  globalPerSecond?: number;
  roleBucket?: WindowSpec;
  invalidThreshold?: number;
  banMs?: number;
  seed?: EmulatorSeed;
  logger?: Logger;
  /** Bucket of every route other than member-role changes (per route and major parameter). */
  routeBucket?: WindowSpec;
  /** Artificial latency added to every platform API request. */
  latencyMs?: number;
  /** The OAuth2 client allowed to sign users in (GET /oauth2/authorize, POST /api/v10/oauth2/token). */
  oauth?: OAuthClient;
  /** Clock in epoch milliseconds (default Date.now): tests move it past a window's reset instead of sleeping. */
  now?: () => number;
};

/** The limits that can change while running (`PATCH /_emulator/config`, `state.configure`). */
export type EmulatorConfig = {
  globalPerSecond: number;
  roleBucket: WindowSpec;
  routeBucket: WindowSpec;
  invalidThreshold: number;
  banMs: number;
  latencyMs: number;
};

export const DEFAULT_CONFIG = {
  globalPerSecond: 50,
  roleBucket: { limit: 10, windowMs: 10_000 },
  // Generous on purpose: reads should meet the global limit long before their own bucket.
  routeBucket: { limit: 100, windowMs: 1_000 },
  invalidThreshold: 10_000,
  banMs: 3_600_000,
  latencyMs: 0,
} as const satisfies EmulatorConfig;

export const DEFAULT_OPTIONS = {
  port: 3900,
  host: '127.0.0.1',
  botToken: 'emulator-bot-token',
  botUserId: '1000000000000000001',
  // The local dashboard's callback (scripts/start.sh's default port), under both loopback names.
  oauth: {
    clientId: '1000000000000000010',
    clientSecret: 'emulator-oauth-secret',
    redirectUris: ['http://127.0.0.1:3001/auth/callback', 'http://localhost:3001/auth/callback'],
  },
} as const satisfies Required<Pick<EmulatorOptions, 'port' | 'host' | 'botToken' | 'botUserId'>> & {
  oauth: Required<OAuthClient>;
};

/** The platform counts invalid requests over 10 minutes. */
export const INVALID_WINDOW_MS = 600_000;

const windowSpec = z.object({ limit: z.number().int().min(1), windowMs: z.number().int().min(1) });

export const configPatchSchema = z
  .object({
    globalPerSecond: z.number().int().min(1),
    roleBucket: windowSpec,
    routeBucket: windowSpec,
    invalidThreshold: z.number().int().min(1),
    banMs: z.number().int().min(0),
    latencyMs: z.number().int().min(0).max(60_000),
  })
  .partial()
  .strict();

export type ConfigPatch = z.infer<typeof configPatchSchema>;

export function configFrom(options: EmulatorOptions): EmulatorConfig {
  return {
    globalPerSecond: options.globalPerSecond ?? DEFAULT_CONFIG.globalPerSecond,
    roleBucket: { ...(options.roleBucket ?? DEFAULT_CONFIG.roleBucket) },
    routeBucket: { ...(options.routeBucket ?? DEFAULT_CONFIG.routeBucket) },
    invalidThreshold: options.invalidThreshold ?? DEFAULT_CONFIG.invalidThreshold,
    banMs: options.banMs ?? DEFAULT_CONFIG.banMs,
    latencyMs: options.latencyMs ?? DEFAULT_CONFIG.latencyMs,
  };
}
