import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from './serve';
import { silentLogger } from './logger';

describe('serve', () => {
  it('answers, and stop() returns at once although a keep-alive connection is idle', async () => {
    const s = serve((_req, res) => res.end('ok'), { name: 'test', port: 0, host: '127.0.0.1', portVar: 'TEST_PORT', logger: silentLogger() });
    await new Promise((r) => s.server.once('listening', r));
    const agent = new http.Agent({ keepAlive: true });
    const body = await new Promise<string>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: (s.server.address() as AddressInfo).port, agent }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c)).on('end', () => resolve(text));
        })
        .on('error', reject);
    });
    expect(body).toBe('ok');
    expect(s.server.keepAliveTimeout).toBe(65_000);
    const started = Date.now();
    await s.stop(); // an idle keep-alive socket must not hold shutdown for the 65 s keep-alive timeout
    expect(Date.now() - started).toBeLessThan(2_000);
    agent.destroy();
  });
});
