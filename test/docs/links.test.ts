import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { markdownAnchors, markdownLinks } from '../../scripts/support/markdown';

// Every relative link of the operator and author docs lands: the file exists, and an anchor (#…) is a
// heading of the file it points into (GitHub's anchors). Moving or renaming a section without its links
// fails here.
const root = path.resolve(__dirname, '..', '..');
const DOCS = [
  ...['README.md', 'CHANGELOG.md', 'SECURITY.md'],
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f)),
];

const anchorsOf = new Map<string, Set<string>>();
function anchors(file: string): Set<string> {
  let found = anchorsOf.get(file);
  if (!found) {
    found = markdownAnchors(readFileSync(file, 'utf8'));
    anchorsOf.set(file, found);
  }
  return found;
}

/** What is wrong with one link of `from` (a path relative to the root), or null. */
function problem(from: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto: …
  const [file = '', anchor] = target.split('#', 2);
  const resolved =
    file === '' ? path.join(root, from) : path.resolve(path.dirname(path.join(root, from)), decodeURI(file));
  if (!existsSync(resolved)) return `${target}: no file ${path.relative(root, resolved)}`;
  if (anchor === undefined || anchor === '') return null;
  if (!statSync(resolved).isFile() || !resolved.endsWith('.md'))
    return `${target}: an anchor into a file that is not Markdown`;
  return anchors(resolved).has(decodeURIComponent(anchor))
    ? null
    : `${target}: no heading #${anchor} in ${path.relative(root, resolved)}`;
}

describe('relative links in the docs', () => {
  it.each(DOCS)('%s: every relative link and anchor resolves', (from) => {
    const broken = markdownLinks(readFileSync(path.join(root, from), 'utf8'))
      .map((l) => ({ line: l.line, why: problem(from, l.target) }))
      .filter((l) => l.why !== null)
      .map((l) => `${from}:${l.line} ${l.why}`);
    expect(broken).toEqual([]);
  });

  it('the checker itself: finds a heading, refuses a missing one and a missing file', () => {
    expect(problem('docs/go-live.md', 'operations.md#before-going-live')).toBeNull();
    expect(problem('docs/go-live.md', 'operations.md#no-such-heading')).toMatch(/no heading/);
    expect(problem('docs/go-live.md', 'no-such-file.md')).toMatch(/no file/);
    expect(problem('README.md', 'https://example.com/x.md#y')).toBeNull();
  });
});
