// docker-compose.yml against the Compose Specification JSON schema (the copy the maintained Compose
// linter dclint ships on npm), validated with ajv, then the conventions this service relies on.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { contextAdmits } from './docker-context';
import { asArray, asRecord, get, type Problem } from './types';

const APP_SERVICES = ['api', 'plugin-broker', 'dashboard', 'bot-worker'];

function composeSchema(): object {
  const pkg = require.resolve('dclint/package.json');
  const schema = JSON.parse(
    readFileSync(path.join(path.dirname(pkg), 'schemas', 'compose.schema.json'), 'utf8'),
  ) as Record<string, unknown>;
  // It declares draft-07 by an https URL ajv does not know by that spelling; ajv's default is draft-07.
  delete schema.$schema;
  return schema;
}

export function validateCompose(file: string): { problems: Problem[] } {
  const problems: Problem[] = [];
  const name = path.basename(file);
  const fail = (where: string, message: string) => problems.push({ file: name, where, message });
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8'), { merge: true, maxAliasCount: 100 });
  } catch (err) {
    fail('(yaml)', (err as Error).message);
    return { problems };
  }
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(composeSchema());
  if (!validate(doc)) {
    for (const e of validate.errors ?? [])
      fail(
        e.instancePath || '/',
        `${e.message ?? 'invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
      );
  }
  const services = asRecord(get(doc, 'services'));
  for (const svc of ['postgres', 'redis', 'migrate', ...APP_SERVICES])
    if (!(svc in services)) fail(`services.${svc}`, 'service is missing');
  for (const svc of APP_SERVICES) {
    const s = services[svc];
    if (!s) continue;
    const test = asArray(get(s, 'healthcheck', 'test')).join(' ');
    if (!test.includes('/readyz')) fail(`services.${svc}.healthcheck`, 'must probe /readyz');
    // A check that starts Node is slow to start on a busy host and is killed at its timeout.
    if (/\bnode\b/.test(test))
      fail(`services.${svc}.healthcheck`, 'must not start a Node process per check (bash /dev/tcp, as the others)');
    const seconds = (v: unknown) => Number(/^(\d+)s$/.exec(String(v))?.[1] ?? NaN);
    if (!(seconds(get(s, 'healthcheck', 'timeout')) >= 10) || !(seconds(get(s, 'healthcheck', 'start_period')) >= 60)) {
      fail(
        `services.${svc}.healthcheck`,
        'timeout at least 10s and start_period at least 60s: sized for a busy 2-core host',
      );
    }
    if (get(s, 'depends_on', 'migrate', 'condition') !== 'service_completed_successfully')
      fail(`services.${svc}.depends_on`, 'must wait for migrate: service_completed_successfully');
    for (const dep of ['postgres', 'redis'])
      if (get(s, 'depends_on', dep, 'condition') !== 'service_healthy')
        fail(`services.${svc}.depends_on`, `must wait for ${dep}: service_healthy`);
    for (const [key, value] of Object.entries(asRecord(get(s, 'environment')))) {
      if (/SECRET|TOKEN|PASSWORD/.test(key) && !String(value).includes('${'))
        fail(`services.${svc}.environment.${key}`, 'secrets come from .env interpolation, never literal values');
    }
  }
  // Every container: a memory limit and rotated logs; a published port binds to the loopback unless its
  // variable names another address (docs/compose.md, "Published ports").
  for (const [svc, s] of Object.entries(services)) {
    if (!get(s, 'mem_limit')) fail(`services.${svc}.mem_limit`, 'every container needs a memory limit');
    const logging = get(s, 'logging');
    if (
      get(logging, 'driver') !== 'json-file' ||
      !get(logging, 'options', 'max-size') ||
      !get(logging, 'options', 'max-file')
    )
      fail(`services.${svc}.logging`, 'json-file with max-size and max-file (rotated logs)');
    for (const port of asArray(get(s, 'ports'))) {
      const spec = String(port);
      if (!/^\$\{\w+:-127\.0\.0\.1:\d+\}:\d+$/.test(spec) && !spec.startsWith('127.0.0.1:'))
        fail(`services.${svc}.ports`, `${spec}: bind to 127.0.0.1 by default ("\${VAR:-127.0.0.1:PORT}:PORT")`);
    }
  }
  const redisCommand = asArray(get(services, 'redis', 'command')).join(' ');
  if (!/--appendonly yes/.test(redisCommand) || !/--maxmemory-policy noeviction/.test(redisCommand))
    fail('services.redis.command', 'Redis needs --appendonly yes and --maxmemory-policy noeviction');
  if (Number(get(services, 'bot-worker', 'deploy', 'replicas') ?? 1) < 2)
    fail('services.bot-worker.deploy.replicas', 'run several bot workers');
  // Every build target must be a stage of the Dockerfile beside the compose file.
  const dockerfile = path.join(path.dirname(file), 'Dockerfile');
  const stages = existsSync(dockerfile)
    ? [...readFileSync(dockerfile, 'utf8').matchAll(/^FROM\s+\S+\s+AS\s+(\S+)/gim)].map((m) => m[1])
    : [];
  // The images run compiled JavaScript (pnpm build): no stage may start a TypeScript loader.
  if (existsSync(dockerfile)) {
    for (const line of readFileSync(dockerfile, 'utf8').split('\n')) {
      if (/^\s*(CMD|ENTRYPOINT)\b/.test(line) && /\btsx\b|\.ts"/.test(line))
        fail('Dockerfile', `${line.trim()}: images run node dist/…, not TypeScript through tsx`);
    }
  }
  for (const [svc, s] of Object.entries(services)) {
    const target = get(s, 'build', 'target');
    if (typeof target === 'string' && !stages.includes(target))
      fail(`services.${svc}.build.target`, `${target} is not a stage of the Dockerfile`);
  }
  // The build stage copies the whole context (COPY . .), so every file the context admits is an input of
  // `pnpm install` and `pnpm build`: editing a compose file rebuilt them. The files that only
  // say how images are built and run stay out of it (.dockerignore); the Dockerfile reaches the builder
  // anyway, which never copies it.
  const dir = path.dirname(file);
  const deployOnly = readdirSync(dir).filter(
    (f) => /^docker-compose.*\.ya?ml$/.test(f) || f === 'Dockerfile' || f === '.dockerignore',
  );
  for (const f of deployOnly)
    if (contextAdmits(dir, f))
      fail('.dockerignore', `${f} is in the build context: editing it would rebuild the build stage (COPY . .)`);
  const envExample = path.join(path.dirname(file), '.env.example');
  if (!existsSync(envExample)) fail('.env.example', 'missing (the compose file reads it)');
  else {
    for (const line of readFileSync(envExample, 'utf8').split('\n')) {
      const m = /^(\w*(?:SECRET|TOKEN|PASSWORD)\w*)=(.+)$/.exec(line.trim());
      if (m) fail('.env.example', `${m[1]} has a value: secrets belong in .env, not in the committed example`);
    }
  }
  return { problems };
}
