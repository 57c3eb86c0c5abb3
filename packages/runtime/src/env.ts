import { z } from 'zod';

/**
 * Parses a service's environment once, at start (design: only a service's env.ts reads process.env).
 * Fails fast with every problem listed, never with a half-configured process.
 */
export function parseEnv<S extends z.ZodType>(schema: S, source: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join('\n')}`);
  }
  return result.data;
}

/** Reusable env fields, so every service spells the shared settings the same way. */
export const envFields = {
  nodeEnv: z.enum(['development', 'test', 'production']).default('development'),
  logLevel: z.enum(['error', 'warn', 'info', 'http', 'debug']).default('info'),
  databaseUrl: z.string().url().default('postgresql://postgres@127.0.0.1:5432/rolelink'),
  redisUrl: z.string().url().default('redis://127.0.0.1:6379'),
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  /** 32-byte key as 64 hex chars or base64; tokens are stored encrypted under it (AES-256-GCM). */
  secretKey: z.string().refine((v) => decodeKey(v) !== null, 'must be 32 bytes as 64 hex characters or base64'),
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
};

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
