import path from 'node:path';
import { isOrigin } from '@rolelink/plugin-sdk';
import { z } from 'zod';

// The example stands alone (a plugin author copies it), so it parses its own environment with zod
// rather than through @rolelink/runtime.
const DATA_DIR = path.resolve(__dirname, '..', '..', '..', '.data');

const schema = z.object({
  PLUGIN_PORT: z.coerce.number().int().min(0).max(65535).default(3443),
  PLUGIN_HOST: z.string().default('127.0.0.1'),
  /** Where the User Management API answers (the service's api). */
  ROLELINK_API_URL: z.string().url().default('http://127.0.0.1:3000'),
  /** TLS files: generated (self-signed, for 127.0.0.1 and localhost) at every start and written here. */
  PLUGIN_TLS_CERT_FILE: z.string().default(path.join(DATA_DIR, 'plugin-tls', 'cert.pem')),
  PLUGIN_TLS_KEY_FILE: z.string().default(path.join(DATA_DIR, 'plugin-tls', 'key.pem')),
  /** Registrations (tokens included), kept so a restarted plugin can still call the API. */
  PLUGIN_STATE_FILE: z.string().default(path.join(DATA_DIR, 'plugin-state.json')),
  /** The demo list: `count` consecutive user ids from `first` (the emulator's generated members). */
  PLUGIN_DEMO_FIRST_ID: z
    .string()
    .regex(/^\d{17,20}$/)
    .default('100000000000000000'),
  PLUGIN_DEMO_COUNT: z.coerce.number().int().min(0).max(10_000).default(20),
  /** How long to keep retrying the first push while the service finishes creating the link. */
  PLUGIN_PUSH_RETRY_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * The plugin URL exactly as registered with the service: iframe tokens carry it as `aud`, and the
   * embed URL is built from it. Default `https://127.0.0.1:<PLUGIN_PORT>` (set below, it needs the port).
   */
  PLUGIN_PUBLIC_URL: z
    .string()
    .url()
    .refine((u) => u.startsWith('https://'), 'must be an https:// URL (the service only calls HTTPS plugins)')
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** Origins allowed to frame /embed (CSP frame-ancestors) and to exchange window messages with it. */
  PLUGIN_DASHBOARD_ORIGINS: z
    .string()
    .default('http://127.0.0.1:3001,http://localhost:3001')
    .transform((list, ctx) => {
      const origins = list
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean);
      for (const origin of origins) {
        if (!isOrigin(origin))
          ctx.addIssue({ code: 'custom', message: `"${origin}" is not an origin like https://dashboard.example.com` });
      }
      if (origins.length === 0) ctx.addIssue({ code: 'custom', message: 'must list at least one origin' });
      return origins;
    }),
});

const withDefaults = schema.transform((env) => ({
  ...env,
  PLUGIN_PUBLIC_URL: env.PLUGIN_PUBLIC_URL ?? `https://127.0.0.1:${env.PLUGIN_PORT}`,
}));

export type PluginEnv = z.infer<typeof withDefaults>;

export function parsePluginEnv(source: NodeJS.ProcessEnv = process.env): PluginEnv {
  const result = withDefaults.safeParse(source);
  if (!result.success) {
    throw new Error(
      `Invalid environment:\n${result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`,
    );
  }
  return result.data;
}
