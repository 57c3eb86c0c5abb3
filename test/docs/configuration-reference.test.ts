import { readFileSync } from 'node:fs';
import path from 'node:path';
import { envVariables, MetricName } from '@rolelink/runtime';
import { envSchema as apiEnv } from '../../services/api/src/env';
import { envSchema as botWorkerEnv } from '../../services/bot-worker/src/env';
import { envSchema as cliEnv } from '../../services/cli/src/env';
import { envSchema as dashboardEnv } from '../../services/dashboard/src/env';
import { envSchema as migrateEnv } from '../../services/migrate/src/env';
import { emulatorEnvSchema } from '../../services/platform-emulator/src/env';
import { envSchema as brokerEnv } from '../../services/plugin-broker/src/env';

// docs/configuration.md is the one list of settings an operator reads: each service's section names exactly
// the variables its env parser reads (its own table plus the shared settings it names), so a variable added
// to, or removed from, an env.ts without its line here fails.
const root = path.resolve(__dirname, '..', '..');
const doc = readFileSync(path.join(root, 'docs', 'configuration.md'), 'utf8');

const PARSERS = [
  { heading: '## api', schema: apiEnv },
  { heading: '## plugin-broker', schema: brokerEnv },
  { heading: '## bot-worker', schema: botWorkerEnv },
  { heading: '## dashboard', schema: dashboardEnv },
  { heading: '## rolelink CLI', schema: cliEnv },
  { heading: '## migrate', schema: migrateEnv },
  { heading: '## platform emulator', schema: emulatorEnvSchema },
];

/** The text of the section whose heading is exactly `heading`, up to the next heading of any level. */
function section(heading: string): string {
  const lines = doc.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`docs/configuration.md has no section "${heading}"`);
  const end = lines.findIndex((l, i) => i > start && /^#+ /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** Backticked names in the first column of a section's table rows (header and rule rows skipped). */
function firstColumn(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
    .slice(1)
    .flatMap((l) => [...(l.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''));
}

/** The names after "**Shared settings it reads:**", up to the end of that paragraph. */
function sharedNamed(text: string): string[] {
  const paragraph = /\*\*Shared\s+settings\s+it\s+reads:\*\*([\s\S]*?)(?:\n\n|$)/.exec(text)?.[1] ?? '';
  return [...paragraph.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1] ?? '');
}

const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();

describe('docs/configuration.md', () => {
  const shared = firstColumn(section('## Shared settings'));

  it.each(PARSERS)('$heading lists exactly the variables its env parser reads', ({ heading, schema }) => {
    const text = section(heading);
    const listed = [...sharedNamed(text), ...firstColumn(text)];
    expect(sorted(listed)).toEqual(sorted(envVariables(schema)));
    // A variable is described once: in the shared table or in the service's own, not in both.
    expect(firstColumn(text).filter((v) => sharedNamed(text).includes(v))).toEqual([]);
  });

  it('describes every shared setting a service names, and names every one it describes', () => {
    const named = PARSERS.flatMap(({ heading }) => sharedNamed(section(heading)));
    expect(sorted(named)).toEqual(sorted(shared));
  });

  it('lists every metric of MetricName, and no other', () => {
    const listed = firstColumn(section('## Metrics')).filter((m) => !m.endsWith('_*'));
    expect(sorted(listed)).toEqual(sorted(Object.values(MetricName)));
  });
});
