// The example plugin server: HTTPS with a self-signed certificate made at start, the plugin contract of
// spec 4.2, and a demo list pushed through the User Management API after registration.
import https from 'node:https';
import { createPluginApp } from './app';
import { parsePluginEnv } from './env';
import { demoMemberIds, pushList } from './push';
import { Registrations } from './registrations';
import { writeSelfSignedCert } from './tls';

const log = (line: string) =>
  process.stdout.write(
    `${JSON.stringify({ service: 'example-plugin', time: new Date().toISOString(), message: line })}\n`,
  );

async function main(): Promise<void> {
  const env = parsePluginEnv();
  const tls = await writeSelfSignedCert(
    env.PLUGIN_TLS_CERT_FILE,
    env.PLUGIN_TLS_KEY_FILE,
    new URL(env.PLUGIN_PUBLIC_URL).hostname,
  );
  const registrations = new Registrations(env.PLUGIN_STATE_FILE);
  const inflight = new AbortController();

  const app = createPluginApp({
    registrations,
    defaultCount: env.PLUGIN_DEMO_COUNT,
    log,
    publicUrl: env.PLUGIN_PUBLIC_URL,
    dashboardOrigins: env.PLUGIN_DASHBOARD_ORIGINS,
    onListWanted: (link, count) => {
      const ids = demoMemberIds(env.PLUGIN_DEMO_FIRST_ID, count);
      void pushList(env.ROLELINK_API_URL, link, ids, { retryForMs: env.PLUGIN_PUSH_RETRY_MS, signal: inflight.signal })
        .then((r) =>
          log(
            r.held
              ? `list of ${ids.length} for ${link.guildId}/${link.roleId} held (${r.held.removals} removals): ${r.held.message}`
              : `pushed ${ids.length} member(s) to ${link.guildId}/${link.roleId} via ${r.via}: ${r.userCount} stored`,
          ),
        )
        .catch((err: unknown) => log(`push to ${link.guildId}/${link.roleId} failed: ${String(err)}`));
    },
  });

  const server = https.createServer({ cert: tls.cert, key: tls.key }, app);
  server.on('error', (err: NodeJS.ErrnoException) => {
    log(err.code === 'EADDRINUSE' ? `port ${env.PLUGIN_PORT} is already in use (set PLUGIN_PORT)` : err.message);
    process.exit(1);
  });
  server.listen(env.PLUGIN_PORT, env.PLUGIN_HOST, () => {
    log(`listening on https://${env.PLUGIN_HOST}:${env.PLUGIN_PORT} (public URL ${env.PLUGIN_PUBLIC_URL})`);
    log(`embedded page frameable by ${env.PLUGIN_DASHBOARD_ORIGINS.join(' ')}`);
  });

  const stop = () => {
    inflight.abort();
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGTERM', stop).once('SIGINT', stop);
}

main().catch((err: unknown) => {
  log(`failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
