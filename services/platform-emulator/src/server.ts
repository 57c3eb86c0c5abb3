import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { silentLogger } from '@rolelink/runtime';
import { createEmulatorApp } from './app';
import { EmulatorState } from './emulator-state';
import { configFrom, DEFAULT_OPTIONS, type EmulatorOptions, type OAuthClient } from './options';

export type RunningEmulator = {
  /** http://host:port, with the real port when 0 was asked for. */
  url: string;
  /** `${url}/api`: what @discordjs/rest takes as `api` (it appends `/v10`). */
  apiBase: string;
  botToken: string;
  /** The OAuth2 client's credentials, for tests that sign a user in. */
  oauth: OAuthClient;
  /** Direct in-process access for tests: holders(), setMemberRoles(), stats(), seed(), configure()… */
  state: EmulatorState;
  /** Stops listening and closes connections; safe to call twice. */
  close(): Promise<void>;
};

/** Starts the emulator; rejects with a clear message when the port is taken. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const logger = options.logger ?? silentLogger();
  const host = options.host ?? DEFAULT_OPTIONS.host;
  const port = options.port ?? DEFAULT_OPTIONS.port;
  const botToken = options.botToken ?? DEFAULT_OPTIONS.botToken;
  const oauth = options.oauth ?? DEFAULT_OPTIONS.oauth;
  const state = new EmulatorState({
    botToken,
    botUserId: options.botUserId ?? DEFAULT_OPTIONS.botUserId,
    config: configFrom(options),
    oauth,
    now: options.now,
  });
  if (options.seed) state.seed(options.seed);

  const server = createServer(createEmulatorApp(state, logger));
  await listen(server, port, host);
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    apiBase: `${url}/api`,
    botToken,
    oauth: state.oauthClient,
    state,
    close: () => (closing ??= stop(server)),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      if (err.code === 'EADDRINUSE')
        reject(
          new Error(
            `Port ${port} on ${host} is already in use: stop the other process or choose another port (EMULATOR_PORT).`,
          ),
        );
      else if (err.code === 'EACCES') reject(new Error(`No permission to listen on ${host}:${port}.`));
      else reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/** Stops accepting, lets in-flight answers finish, and drops idle keep-alive sockets (HTTP clients pool them). */
function stop(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), 2_000);
    force.unref();
  });
}
