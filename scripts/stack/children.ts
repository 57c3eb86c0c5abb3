import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEMO, ROOT, type PortName } from './config';
import type { Platform } from './platform';

export type ChildSpec = {
  key: string;
  label: string;
  /** Entry point, run as `node --import tsx <main>`. */
  main: string;
  port: PortName;
  /** The URL answering 200 once the child is ready. */
  readyPath: string;
  env: Record<string, string>;
  https?: boolean;
  /**
   * Calls the example plugin over HTTPS, so it gets NODE_EXTRA_CA_CERTS with the plugin's self-signed
   * certificate (see extraCaCerts). Node reads that file once, at start: such a child starts after the
   * plugin is ready. Only the plugin broker calls plugins (the dashboard and the CLI only check their URLs).
   */
  trustsPlugin?: boolean;
};

export type StackUrls = { apiUrl: string; emulatorUrl: string; emulatorApiBase: string };

/**
 * The stack's processes, in start order. Services read their settings from their own env.ts. On a real
 * platform there is no emulator, and the platform settings are the caller's (the environment every child
 * starts with), as is DASHBOARD_PUBLIC_URL when set (the callback registered on the platform derives from it).
 */
export function childSpecs(
  ports: Record<PortName, number>,
  files: { seedFile: string; certFile: string; keyFile: string; pluginState: string },
  platform: Platform = { kind: 'emulator' },
): ChildSpec[] {
  const specs = allChildSpecs(ports, files);
  if (platform.kind === 'emulator') return specs;
  return specs
    .filter((spec) => spec.key !== 'emulator')
    .map((spec) => {
      const env = Object.fromEntries(Object.entries(spec.env).filter(([name]) => !name.startsWith('PLATFORM_')));
      if (spec.key === 'dashboard' && platform.dashboardPublicUrl)
        env.DASHBOARD_PUBLIC_URL = platform.dashboardPublicUrl;
      return { ...spec, env };
    });
}

function allChildSpecs(
  ports: Record<PortName, number>,
  files: { seedFile: string; certFile: string; keyFile: string; pluginState: string },
): ChildSpec[] {
  const emulatorUrl = `http://127.0.0.1:${ports.emulator}`;
  return [
    {
      key: 'emulator',
      label: 'Platform emulator',
      main: 'services/platform-emulator/src/main.ts',
      port: 'emulator',
      readyPath: '/_emulator/stats',
      env: {
        EMULATOR_PORT: String(ports.emulator),
        EMULATOR_HOST: '127.0.0.1',
        EMULATOR_SEED: files.seedFile,
        EMULATOR_BOT_TOKEN: DEMO.botToken,
        EMULATOR_OAUTH_CLIENT_ID: DEMO.oauth.clientId,
        EMULATOR_OAUTH_CLIENT_SECRET: DEMO.oauth.clientSecret,
        // The dashboard's callback, registered as docs/dashboard.md says to register it on the platform.
        EMULATOR_OAUTH_REDIRECT_URIS: `http://127.0.0.1:${ports.dashboard}/auth/callback`,
      },
    },
    {
      key: 'plugin',
      label: 'Example plugin',
      main: 'examples/plugin-server/src/main.ts',
      port: 'plugin',
      readyPath: '/health',
      https: true,
      env: {
        PLUGIN_PORT: String(ports.plugin),
        PLUGIN_HOST: '127.0.0.1',
        ROLELINK_API_URL: `http://127.0.0.1:${ports.api}`,
        PLUGIN_TLS_CERT_FILE: files.certFile,
        PLUGIN_TLS_KEY_FILE: files.keyFile,
        PLUGIN_STATE_FILE: files.pluginState,
        PLUGIN_DEMO_FIRST_ID: DEMO.firstMemberId,
        PLUGIN_PUBLIC_URL: `https://127.0.0.1:${ports.plugin}`,
        // The iframe page may be framed by the local dashboard, opened by either name.
        PLUGIN_DASHBOARD_ORIGINS: `http://127.0.0.1:${ports.dashboard},http://localhost:${ports.dashboard}`,
      },
    },
    {
      key: 'plugin-broker',
      label: 'Plugin broker',
      main: 'services/plugin-broker/src/main.ts',
      port: 'broker',
      readyPath: '/readyz',
      trustsPlugin: true,
      env: { BROKER_PORT: String(ports.broker), BROKER_HOST: '127.0.0.1' },
    },
    {
      key: 'api',
      label: 'User Management API',
      main: 'services/api/src/main.ts',
      port: 'api',
      readyPath: '/readyz',
      env: { API_PORT: String(ports.api), API_HOST: '127.0.0.1' },
    },
    {
      key: 'bot-worker',
      label: 'Bot worker',
      main: 'services/bot-worker/src/main.ts',
      port: 'worker',
      readyPath: '/readyz',
      env: {
        WORKER_PORT: String(ports.worker),
        WORKER_HOST: '127.0.0.1',
        PLATFORM_API_URL: `${emulatorUrl}/api`,
        PLATFORM_BOT_TOKEN: DEMO.botToken,
      },
    },
    {
      key: 'dashboard',
      label: 'Dashboard',
      main: 'services/dashboard/src/main.ts',
      port: 'dashboard',
      readyPath: '/readyz',
      env: {
        DASHBOARD_PORT: String(ports.dashboard),
        DASHBOARD_HOST: '127.0.0.1',
        DASHBOARD_PUBLIC_URL: `http://127.0.0.1:${ports.dashboard}`,
        // Sign-in goes through the emulator's OAuth2 pages: production sets the platform's URL, id and secret.
        PLATFORM_OAUTH_AUTHORIZE_URL: `${emulatorUrl}/oauth2/authorize`,
        PLATFORM_OAUTH_CLIENT_ID: DEMO.oauth.clientId,
        PLATFORM_OAUTH_CLIENT_SECRET: DEMO.oauth.clientSecret,
      },
    },
  ];
}

export function isBuilt(spec: ChildSpec): boolean {
  return existsSync(path.join(ROOT, spec.main));
}

/** Where the example plugin listens: the services must accept it although it is a private address. */
export const PLUGIN_HOST = '127.0.0.1';

/**
 * ROLELINK_ALLOW_PRIVATE_PLUGIN_HOSTS for the children: the caller's comma list with the plugin's host
 * added (the services split it the same way), without duplicates. `added` is false when it was there.
 */
export function allowedPluginHosts(given: string | undefined): { value: string; added: boolean } {
  const hosts = (given ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const added = !hosts.includes(PLUGIN_HOST);
  return { value: [...new Set(added ? [...hosts, PLUGIN_HOST] : hosts)].join(','), added };
}

/**
 * NODE_EXTRA_CA_CERTS for the children that call the plugin. Node takes a single file: the plugin's
 * certificate alone, or, when the caller set a file of their own, both written to `bundleFile` (theirs
 * first), so the children trust what the caller trusts too. Call it after the plugin wrote its
 * certificate: it makes a new one at every start. `note` says what was done, for the log.
 */
export function extraCaCerts(
  given: string | undefined,
  pluginCert: string,
  bundleFile: string,
): { file: string; note: string } {
  if (!given) return { file: pluginCert, note: `NODE_EXTRA_CA_CERTS=${pluginCert} (the example plugin's certificate)` };
  let theirs: string;
  try {
    theirs = readFileSync(given, 'utf8');
  } catch (err) {
    return {
      file: pluginCert,
      note: `NODE_EXTRA_CA_CERTS: yours (${given}) cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}), so only the example plugin's certificate is used`,
    };
  }
  const ours = readFileSync(pluginCert, 'utf8');
  writeFileSync(bundleFile, `${theirs.trimEnd()}\n${ours.trimEnd()}\n`);
  return {
    file: bundleFile,
    note: `NODE_EXTRA_CA_CERTS: combined yours (${given}) with the example plugin's certificate in ${bundleFile}`,
  };
}
