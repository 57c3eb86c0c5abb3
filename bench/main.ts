// `pnpm bench <name> [args…]` runs bench/<name>.ts (e.g. `pnpm bench sync`, `pnpm bench api`).
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  const available = readdirSync(__dirname)
    .filter((f) => f.endsWith('.ts') && f !== 'main.ts' && !f.includes('.test.') && !f.startsWith('_'))
    .map((f) => f.replace(/\.ts$/, ''));
  if (!name || !/^[\w-]+$/.test(name) || !existsSync(path.join(__dirname, `${name}.ts`))) {
    console.error(`usage: pnpm bench <name> [args]\navailable: ${available.join(', ') || '(none)'}`);
    process.exit(2);
  }
  process.argv = [process.argv[0]!, path.join(__dirname, `${name}.ts`), ...args];
  const mod = (await import(path.join(__dirname, `${name}.ts`))) as { run?: (args: string[]) => Promise<void> };
  if (typeof mod.run === 'function') await mod.run(args);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exit(1);
});
