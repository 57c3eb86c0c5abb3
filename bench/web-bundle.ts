// `pnpm bench web-bundle`: what a browser downloads before the dashboard's first page can
// render — the entry script, every module it imports statically (Vite preloads them) and the stylesheets
// index.html links — each gzipped as the server would send it, summed beside the 200 kB goal. The route
// chunks loaded later (React.lazy / route `lazy`) are listed after it, for information.
//   pnpm bench web-bundle [--no-build]   (the build runs first unless --no-build: the figure is the source's)
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const WEB = path.join(__dirname, '..', 'services', 'dashboard', 'web');
const DIST = path.join(WEB, 'dist');
const GOAL_BYTES = 200 * 1000;

const gz = (file: string) => gzipSync(readFileSync(path.join(DIST, file))).length;
const kB = (n: number) => `${(n / 1000).toFixed(1)} kB`;

/** Files named by index.html: the entry script, its modulepreloads and the stylesheets. */
function linked(html: string): string[] {
  const refs = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="\/([^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
  return [...new Set(refs)];
}

/** A chunk's static imports (`import … from "./x.js"`, not `import("./x.js")`), as dist-relative paths. */
function staticImports(file: string): string[] {
  const code = readFileSync(path.join(DIST, file), 'utf8');
  const dir = path.posix.dirname(file);
  return [...code.matchAll(/\bimport\s*(?:[\w$*{}\s,]+?\s*from\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g)].map((m) =>
    path.posix.join(dir, m[1]!),
  );
}

export function run(args: string[]): Promise<void> {
  if (!args.includes('--no-build'))
    execFileSync('pnpm', ['--filter', '@rolelink/dashboard-web', 'build', '--logLevel', 'warn'], { stdio: 'inherit' });
  const initial = new Set<string>();
  const queue = linked(readFileSync(path.join(DIST, 'index.html'), 'utf8'));
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (initial.has(file)) continue;
    initial.add(file);
    if (file.endsWith('.js')) queue.push(...staticImports(file));
  }
  console.log(`dashboard web bundle, initial load (load ${os.loadavg()[0]!.toFixed(2)})`);
  let total = 0;
  for (const file of [...initial].sort()) {
    const size = gz(file);
    total += size;
    console.log(`  ${file.padEnd(44)} ${kB(size).padStart(9)} gzip`);
  }
  console.log(`initial load: ${kB(total)} gzip   goal ≤ ${kB(GOAL_BYTES)}   ${total <= GOAL_BYTES ? 'PASS' : 'FAIL'}`);
  const later = readdirSync(path.join(DIST, 'assets'))
    .map((f) => `assets/${f}`)
    .filter((f) => f.endsWith('.js') && !initial.has(f))
    .map((f) => ({ f, size: gz(f) }))
    .sort((a, b) => b.size - a.size);
  console.log(
    `loaded on demand: ${later.length} chunks, ${kB(later.reduce((n, c) => n + c.size, 0))} gzip in all; largest:`,
  );
  for (const c of later.slice(0, 5)) console.log(`  ${c.f.padEnd(44)} ${kB(c.size).padStart(9)} gzip`);
  return Promise.resolve();
}
