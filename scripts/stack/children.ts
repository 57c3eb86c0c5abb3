import { existsSync } from 'node:fs';
import path from 'node:path';
import { DEMO, ROOT, type PortName } from './config';

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
};

export type StackUrls = { apiUrl: string; emulatorUrl: string; emulatorApiBase: string };

/** The stack's processes, in start order. Services read their settings from their own env.ts. */
export function childSpecs(ports: Record<PortName, number>, files: { seedFile: string; certFile: string; keyFile: string; pluginState: string }): ChildSpec[] {
  const emulatorUrl = `http://127.0.0.1:${ports.emulator}`;
  return [
    {
      key: 'emulator',
      label: 'Platform emulator',
      main: 'packages/platform-emulator/src/main.ts',
      port: 'emulator',
      readyPath: '/_emulator/stats',
      env: { EMULATOR_PORT: String(ports.emulator), EMULATOR_HOST: '127.0.0.1', EMULATOR_SEED: files.seedFile, EMULATOR_BOT_TOKEN: DEMO.botToken },
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
      },
    },
    { key: 'plugin-broker', label: 'Plugin broker', main: 'services/plugin-broker/src/main.ts', port: 'broker', readyPath: '/readyz', env: { BROKER_PORT: String(ports.broker), BROKER_HOST: '127.0.0.1' } },
    { key: 'api', label: 'User Management API', main: 'services/api/src/main.ts', port: 'api', readyPath: '/readyz', env: { API_PORT: String(ports.api), API_HOST: '127.0.0.1' } },
    {
      key: 'bot-worker',
      label: 'Bot worker',
      main: 'services/bot-worker/src/main.ts',
      port: 'worker',
      readyPath: '/readyz',
      env: { WORKER_PORT: String(ports.worker), WORKER_HOST: '127.0.0.1', PLATFORM_API_URL: `${emulatorUrl}/api`, PLATFORM_BOT_TOKEN: DEMO.botToken },
    },
    { key: 'dashboard', label: 'Dashboard', main: 'services/dashboard/src/main.ts', port: 'dashboard', readyPath: '/readyz', env: { DASHBOARD_PORT: String(ports.dashboard), DASHBOARD_HOST: '127.0.0.1' } },
  ];
}

export function isBuilt(spec: ChildSpec): boolean {
  return existsSync(path.join(ROOT, spec.main));
}
