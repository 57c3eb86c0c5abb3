import path from 'node:path';
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
  PLUGIN_DEMO_FIRST_ID: z.string().regex(/^\d{17,20}$/).default('100000000000000000'),
  PLUGIN_DEMO_COUNT: z.coerce.number().int().min(0).max(10_000).default(20),
  /** How long to keep retrying the first push while the service finishes creating the link. */
  PLUGIN_PUSH_RETRY_MS: z.coerce.number().int().min(0).default(60_000),
});

export type PluginEnv = z.infer<typeof schema>;

export function parsePluginEnv(source: NodeJS.ProcessEnv = process.env): PluginEnv {
  const result = schema.safeParse(source);
  if (!result.success) {
    throw new Error(`Invalid environment:\n${result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}`);
  }
  return result.data;
}
