import { spawnSync } from 'node:child_process';
import path from 'node:path';

// scripts/deploy/lib.sh's host_url turns the host side of a Compose `ports:` entry into the URL that
// deploy-local.sh --keep prints. It must not print `http://127.0.0.1:127.0.0.1:` for API_PORT=127.0.0.1:
// <port>, the form rolling-restart.sh sets. No Docker engine needed: plain bash.
const LIB = path.resolve(__dirname, '..', '..', 'scripts', 'deploy', 'lib.sh');

function hostUrl(spec: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', '. "$0" && host_url "$1"', LIB, spec], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr.trim() };
}

describe('host_url (scripts/deploy/lib.sh)', () => {
  it.each([
    ['3000', 'http://127.0.0.1:3000'],
    ['127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['0.0.0.0:3001', 'http://127.0.0.1:3001'],
    ['192.0.2.7:8080', 'http://192.0.2.7:8080'],
    // What `docker-compose port api 3000` answers for an ephemeral port.
    ['127.0.0.1:49153', 'http://127.0.0.1:49153'],
  ])('%s → %s', (spec, url) => {
    expect(hostUrl(spec)).toEqual({ status: 0, stdout: url, stderr: '' });
  });

  it('refuses a spec without a port (HOST: is an ephemeral port) instead of printing a broken URL', () => {
    const r = hostUrl('127.0.0.1:');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('✗ host_url: 127.0.0.1: has no port (an ephemeral one: ask docker-compose port)');
  });
});
