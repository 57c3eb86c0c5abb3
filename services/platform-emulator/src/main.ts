import { readFile } from 'node:fs/promises';
import { createLogger, onShutdown, runMain } from '@rolelink/runtime';
import { optionsFromEnv, readEnv } from './env';
import { parseSeed, type EmulatorSeed } from './seed';
import { startEmulator } from './server';

async function loadSeed(path: string): Promise<EmulatorSeed> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`Cannot read EMULATOR_SEED file ${path}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return parseSeed(JSON.parse(text));
  } catch (err) {
    throw new Error(`EMULATOR_SEED file ${path}: ${(err as Error).message}`, { cause: err });
  }
}

async function main(): Promise<void> {
  const env = readEnv();
  const logger = createLogger('platform-emulator', env.LOG_LEVEL);
  const seed = env.EMULATOR_SEED ? await loadSeed(env.EMULATOR_SEED) : undefined;
  const emulator = await startEmulator({ ...optionsFromEnv(env), logger, ...(seed ? { seed } : {}) });
  const guilds = emulator.state.guildIds().length;
  logger.info(`platform emulator listening on ${emulator.url} (api base ${emulator.apiBase})`, {
    url: emulator.url,
    apiBase: emulator.apiBase,
    guilds,
  });
  onShutdown(logger, [{ name: 'http server', run: () => emulator.close() }], 10_000);
}

runMain('platform-emulator', main);
