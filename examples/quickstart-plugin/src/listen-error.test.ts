import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generate } from 'selfsigned';

const dir = mkdtempSync(path.join(os.tmpdir(), 'quickstart-port-'));
const taken = net.createServer();
afterAll(() => {
  taken.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the quickstart plugin on a busy port', () => {
  it('exits 1 with one line naming QUICKSTART_PORT, not a stack trace', async () => {
    const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], { keyType: 'ec', curve: 'P-256' });
    writeFileSync(path.join(dir, 'cert.pem'), pems.cert);
    writeFileSync(path.join(dir, 'key.pem'), pems.private);
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const port = (taken.address() as net.AddressInfo).port;

    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(__dirname, 'main.ts')], {
      env: { ...process.env, QUICKSTART_PORT: String(port), QUICKSTART_TLS_CERT: path.join(dir, 'cert.pem') },
    });
    const failed = (await run.then(
      () => null,
      (err: unknown) => err,
    )) as { code: number; stdout: string; stderr: string } | null;
    expect(failed).toMatchObject({ code: 1, stdout: '' });
    expect(failed!.stderr.trim().split('\n')).toEqual([
      `quickstart plugin: port ${port} on 127.0.0.1 is already in use (another plugin, or a quickstart plugin already running): set QUICKSTART_PORT to a free port, e.g. QUICKSTART_PORT=${port + 1}, and link the plugin at https://127.0.0.1:<that port>`,
    ]);
  });
});
