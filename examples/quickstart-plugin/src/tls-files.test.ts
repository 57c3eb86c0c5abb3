import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { readTlsFiles } from './tls-files';

const dir = mkdtempSync(path.join(os.tmpdir(), 'quickstart-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function stackFolder(data: string, name: string): string {
  mkdirSync(path.join(data, name), { recursive: true });
  writeFileSync(path.join(data, name, 'cert.pem'), `cert of ${name}`);
  writeFileSync(path.join(data, name, 'key.pem'), `key of ${name}`);
  return path.join(data, name, 'cert.pem');
}

describe('the quickstart plugin finds its certificate', () => {
  it("reads the default stack's folder, or the one QUICKSTART_TLS_CERT names with its key beside it", () => {
    const data = path.join(dir, 'both');
    stackFolder(data, 'plugin-tls');
    const other = stackFolder(data, 'plugin-tls-1a2b3c4d');
    expect(readTlsFiles({}, data).cert.toString()).toBe('cert of plugin-tls');
    const chosen = readTlsFiles({ QUICKSTART_TLS_CERT: other }, data);
    expect([chosen.cert.toString(), chosen.key.toString()]).toEqual([
      'cert of plugin-tls-1a2b3c4d',
      'key of plugin-tls-1a2b3c4d',
    ]);
  });

  it('says what is missing, where the stack prints it, and which per-instance certificates exist', () => {
    const data = path.join(dir, 'other-ports');
    stackFolder(data, 'plugin-tls-1a2b3c4d');
    expect(() => readTlsFiles({}, data)).toThrow(
      /^No TLS certificate or key at .*plugin-tls\/cert\.pem and .*plugin-tls\/key\.pem\./,
    );
    expect(() => readTlsFiles({}, data)).toThrow(
      /summary prints where, as "Plugin certificate"[\s\S]*Set QUICKSTART_TLS_CERT to it/,
    );
    expect(() => readTlsFiles({}, data)).toThrow(
      /Certificates the stack wrote here: .*plugin-tls-1a2b3c4d\/cert\.pem$/,
    );
    expect(() => readTlsFiles({}, path.join(dir, 'nothing'))).toThrow(
      /No stack has written one here yet: start it first\.$/,
    );
  });

  it('exits with that message and no stack trace when started without one', async () => {
    const main = path.join(__dirname, 'main.ts');
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', main], {
      env: { ...process.env, QUICKSTART_TLS_CERT: path.join(dir, 'absent', 'cert.pem') },
    });
    const failed = (await run.then(
      () => null,
      (err: unknown) => err,
    )) as { code: number; stderr: string } | null;
    expect(failed).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^quickstart plugin: No TLS certificate or key at .*absent\/cert\.pem/),
    });
    expect(failed?.stderr).not.toMatch(/\n\s+at /);
  });
});
