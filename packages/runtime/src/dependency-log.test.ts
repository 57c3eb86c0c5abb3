import { EventEmitter } from 'node:events';
import { DependencyLog, isConnectionError } from './dependency-log';
import { memoryLogger } from './logger';

describe('DependencyLog', () => {
  it('logs one line when a dependency goes down and one when it comes back, however many attempts fail between', () => {
    const { logger, lines } = memoryLogger();
    let now = 1_000;
    const log = new DependencyLog(logger, () => now);
    log.up('redis');
    for (let i = 0; i < 144; i++) log.down('redis', new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    now = 61_000;
    log.up('redis');
    log.up('redis');
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['warn', 'redis down'],
      ['info', 'redis back up'],
    ]);
    expect(lines[0]).toMatchObject({ dependency: 'redis', error: 'connect ECONNREFUSED 127.0.0.1:6379' });
    expect(lines[1]).toMatchObject({ downForMs: 60_000, failedAttempts: 144 });
  });

  it('keeps each dependency apart', () => {
    const { logger, lines } = memoryLogger();
    const log = new DependencyLog(logger);
    log.down('db', new Error('ECONNREFUSED'));
    log.down('redis', new Error('ECONNREFUSED'));
    log.down('db', new Error('ECONNREFUSED'));
    expect(lines.map((l) => l.message)).toEqual(['db down', 'redis down']);
    expect([log.isDown('db'), log.isDown('redis'), log.isDown('other')]).toEqual([true, true, false]);
  });

  it('counts lost connections towards the state and logs any other error of a client as it comes', () => {
    const { logger, lines } = memoryLogger();
    const log = new DependencyLog(logger);
    const listener = log.listener('redis', 'worker error');
    listener(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }));
    listener(new Error('Connection is closed.'));
    listener(new Error('ERR unknown command'));
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['warn', 'redis down'],
      ['error', 'worker error'],
    ]);
  });

  it("watches a client: its lost connections and 'ready' move the state, its other errors are logged", () => {
    const { logger, lines } = memoryLogger();
    const log = new DependencyLog(logger);
    const client = new EventEmitter();
    log.watch('redis', client);
    client.emit('ready');
    client.emit('error', new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    expect(log.isDown('redis')).toBe(true);
    client.emit('error', new Error('ERR unknown command'));
    client.emit('ready');
    expect(log.isDown('redis')).toBe(false);
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['warn', 'redis down'],
      ['error', 'redis error'],
      ['info', 'redis back up'],
    ]);
  });

  it('tells lost connections from other errors', () => {
    expect(isConnectionError(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isConnectionError(new Error('connect ECONNREFUSED 127.0.0.1:1'))).toBe(true);
    expect(isConnectionError(new Error('ERR wrong number of arguments'))).toBe(false);
    expect(isConnectionError(null)).toBe(false);
  });
});
