import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type Serving } from './serve';
import { silentLogger } from './logger';

type Answer = { connection: string | undefined; body: string; socketClosed: Promise<void> };

function get(s: Serving, agent: http.Agent, path = '/'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: (s.server.address() as AddressInfo).port, path, agent }, (res) => {
        const socketClosed = new Promise<void>((r) =>
          res.socket.destroyed ? r() : res.socket.once('close', () => r()),
        );
        let body = '';
        res
          .on('data', (c: Buffer) => (body += c.toString()))
          .on('end', () => resolve({ connection: res.headers.connection, body, socketClosed }));
      })
      .on('error', reject);
  });
}

async function started(app: http.RequestListener, drainMs = 0): Promise<Serving> {
  const s = serve(app, {
    name: 'test',
    port: 0,
    host: '127.0.0.1',
    portVar: 'TEST_PORT',
    logger: silentLogger(),
    drainMs,
  });
  await new Promise((r) => s.server.once('listening', r));
  return s;
}

describe('serve', () => {
  it('answers with a 65 s keep-alive, and drain() closes an idle keep-alive connection instead of waiting for it', async () => {
    const s = await started((_req, res) => res.end('ok'));
    const agent = new http.Agent({ keepAlive: true });
    const answer = await get(s, agent);
    expect(answer).toMatchObject({ body: 'ok', connection: 'keep-alive' });
    expect(s.server.keepAliveTimeout).toBe(65_000);
    // Would hang for the 65 s keep-alive (past the test's timeout) if the idle socket were left open.
    await s.drain();
    await answer.socketClosed;
    agent.destroy();
  });

  it('sends an answer in flight when draining starts with Connection: close, closes its socket, and only then finishes draining', async () => {
    let release = () => undefined as void;
    let arrived = () => undefined as void;
    const inHandler = new Promise<void>((r) => (arrived = r));
    const s = await started((_req, res) => {
      release = () => void res.end('late');
      arrived();
    });
    const agent = new http.Agent({ keepAlive: true });
    const answer = get(s, agent);
    await inHandler;
    const draining = s.drain();
    expect(s.draining).toBe(true);
    release();
    const a = await answer;
    expect(a).toMatchObject({ body: 'late', connection: 'close' });
    await a.socketClosed;
    await draining;
    agent.destroy();
  });

  it('closes the socket of an answer whose headers went out before draining as soon as that answer ends, inside the drain window', async () => {
    let finish = () => undefined as void;
    let headersOut = () => undefined as void;
    const sent = new Promise<void>((r) => (headersOut = r));
    const s = await started((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('part 1, ');
      finish = () => void res.end('part 2');
      headersOut();
    }, 60_000);
    const agent = new http.Agent({ keepAlive: true });
    const answer = get(s, agent);
    await sent;
    // The window's timer never fires on its own here: the socket must close while the server still listens.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const draining = s.drain();
      finish();
      const a = await answer;
      expect(a).toMatchObject({ body: 'part 1, part 2', connection: 'keep-alive' });
      await a.socketClosed;
      expect(s.server.listening).toBe(true);
      await jest.advanceTimersByTimeAsync(60_000);
      await draining;
    } finally {
      jest.useRealTimers();
      agent.destroy();
    }
  });

  it('keeps serving during the drain window, each answer with Connection: close, and is safe to drain twice', async () => {
    const s = await started((_req, res) => res.end('still here'), 60_000);
    const agent = new http.Agent({ keepAlive: true });
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const first = s.drain();
      expect(s.drain()).toBe(first);
      const a = await get(s, agent);
      expect(a).toMatchObject({ body: 'still here', connection: 'close' });
      await a.socketClosed;
      expect(s.server.listening).toBe(true);
      await jest.advanceTimersByTimeAsync(60_000);
      await first;
      expect(s.server.listening).toBe(false);
    } finally {
      jest.useRealTimers();
      agent.destroy();
    }
  });
});
