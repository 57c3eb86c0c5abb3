import { readFileSync } from 'node:fs';
import path from 'node:path';
import { jobCatalog, schedulerCatalog } from '@rolelink/contracts';

// docs/architecture.md is the map a newcomer reads first; this keeps its tables of tables, db subpaths,
// queues and schedulers equal to what the tree declares, so adding a table, a subpath or a job without
// its line in the map fails here.
const root = path.resolve(__dirname, '..', '..');
const doc = readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');

/** The text of the section whose heading starts with `heading`, up to the next heading (its table comes first). */
function section(heading: string): string {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l.startsWith(heading));
  if (start < 0) throw new Error(`docs/architecture.md has no section "${heading}"`);
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** Backticked names in the first column of a section's table rows (header and rule rows skipped). */
function firstColumnNames(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
    .slice(1)
    .flatMap((l) => [...(l.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''));
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

describe('docs/architecture.md', () => {
  it('lists every table of prisma/schema.prisma, and no other', () => {
    const schema = readFileSync(path.join(root, 'prisma', 'schema.prisma'), 'utf8');
    const tables = [...schema.matchAll(/@@map\("([^"]+)"\)/g)].map((m) => m[1] ?? '');
    expect(sorted(firstColumnNames(section('## Tables')).filter((n) => !n.includes(' ')))).toEqual(sorted(tables));
  });

  it('lists every subpath of @rolelink/db, and no other', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'packages', 'db', 'package.json'), 'utf8')) as {
      exports: Record<string, string>;
    };
    const subpaths = Object.keys(pkg.exports).map((k) => `@rolelink/db/${k.replace(/^\.\//, '')}`);
    expect(sorted(firstColumnNames(section('### Subpaths')))).toEqual(sorted(subpaths));
  });

  it('lists every queue of the catalog with each of its jobs', () => {
    const rows = section('## Queues')
      .split('\n')
      .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
      .slice(1);
    const documented = new Map(
      rows.map((l) => [/`([^`]+)`/.exec(l.split('|')[1] ?? '')?.[1] ?? '', l.split('|')[2] ?? '']),
    );
    expect(sorted(documented.keys())).toEqual(sorted(Object.keys(jobCatalog)));
    for (const [queue, jobs] of Object.entries(jobCatalog)) {
      for (const job of Object.keys(jobs))
        expect({ queue, job, documented: (documented.get(queue) ?? '').includes(`\`${job}`) }).toEqual({
          queue,
          job,
          documented: true,
        });
    }
  });

  it('lists every scheduler of the catalog with its queue and job, and no other', () => {
    const rows = section('### Periodic work')
      .split('\n')
      .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
      .slice(1);
    const documented = rows.map(
      (l) =>
        [...(l.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1])[0] +
        ' ' +
        [...(l.split('|')[2] ?? '').matchAll(/`([^`]+)`/g)]
          .map((m) => m[1])
          .slice(0, 2)
          .join(' '),
    );
    expect(documented.sort()).toEqual(
      Object.entries(schedulerCatalog)
        .map(([id, s]) => `${id} ${s.queue} ${s.job}`)
        .sort(),
    );
  });
});
