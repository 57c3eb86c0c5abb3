// Spacebar's REST API (built by prepare.ts) on a free port, with a PostgreSQL database and a config file of its
// own: registration without captcha or date of birth, rate limits as it ships them (off), endpoints on loopback.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../free-port';

export type SpacebarServer = {
  /** The REST base as PLATFORM_API_URL takes it: `http://127.0.0.1:<port>/api`. */
  apiBase: string;
  port: number;
  databaseUrl: string;
  stop(): Promise<void>;
};

export type SpacebarServerOptions = {
  /** prepare.ts's directory. */
  dir: string;
  /** Where its config and log go. */
  workDir: string;
  /** An admin connection to the PostgreSQL server its database is made on. */
  adminDatabaseUrl: string;
  databaseName: string;
};

export async function startSpacebar(options: SpacebarServerOptions): Promise<SpacebarServer> {
  const admin = new Client({ connectionString: options.adminDatabaseUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${options.databaseName} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${options.databaseName}`);
  } finally {
    await admin.end();
  }
  const url = new URL(options.adminDatabaseUrl);
  url.pathname = `/${options.databaseName}`;
  // Its ORM takes the driver's name from the scheme, and knows `postgres` only.
  const databaseUrl = url.href.replace(/^postgresql:/, 'postgres:');
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const configPath = path.join(options.workDir, 'spacebar-config.json');
  writeFileSync(
    configPath,
    JSON.stringify(
      {
        general: { serverName: origin },
        api: { endpointPublic: `${origin}/api/v9` },
        cdn: { endpointPublic: `${origin}/`, endpointPrivate: `${origin}/` },
        gateway: { endpointPublic: `ws://127.0.0.1:${port}/` },
        register: {
          requireCaptcha: false,
          dateOfBirth: { required: false },
          password: { required: true, minLength: 8, minNumbers: 0, minUpperCase: 0, minSymbols: 0 },
        },
        security: { captcha: { enabled: false } },
      },
      null,
      2,
    ),
  );
  const logFile = path.join(options.workDir, 'spacebar-api.log');
  const log = createWriteStream(logFile);
  const child: ChildProcess = spawn(process.execPath, ['--enable-source-maps', 'dist/api/start.js'], {
    cwd: options.dir,
    env: { ...process.env, PORT: String(port), DATABASE: databaseUrl, CONFIG_PATH: configPath, THREADS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  // Ready once it answers its ping; its first start creates the schema (migrations), which takes a while.
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Spacebar's API exited (${child.exitCode}); see ${logFile}`);
    const ok = await fetch(`${origin}/api/v9/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  return { apiBase: `${origin}/api`, port, databaseUrl, stop };
}
