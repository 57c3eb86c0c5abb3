// Discord's published OpenAPI description (github:discord/discord-api-spec), read with Ajv's 2020-12
// build: which operation a call is, whether the call fits the operation's parameters and body, and
// whether the answer fits the schema the description gives for that path, method and status.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import type { PlatformExchange } from '@rolelink/platform-emulator';

const SPEC_RELATIVE = path.join('shared', 'platforms', 'discord-api-spec', 'openapi.json');
const SPEC_ID = 'discord-openapi.json';
const API_PREFIX = '/api/v10';
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

type Json = Record<string, unknown>;
type Parameter = { name: string; in: 'path' | 'query' | 'header'; required?: boolean; schema?: Json };
type Operation = {
  template: string;
  method: string;
  parameters: Parameter[];
  requestBody?: Json;
  responses: Record<string, Json>;
  pattern: RegExp;
  names: string[];
};

/**
 * The spec lives beside the repository, not in it (../shared/platforms, on every machine and CI):
 * `DISCORD_OPENAPI_SPEC` names the file, else it is looked for in each directory above the repository.
 */
export function specPath(repoRoot: string): string {
  const fromEnv = process.env.DISCORD_OPENAPI_SPEC;
  if (fromEnv) return fromEnv;
  for (let dir = path.dirname(repoRoot); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, SPEC_RELATIVE);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) break;
  }
  throw new Error(
    `Discord's OpenAPI description was not found as ${SPEC_RELATIVE} in any directory above ${repoRoot}: set DISCORD_OPENAPI_SPEC to its path.`,
  );
}

/**
 * A spec's own error, with the reason it is allowed (its prose docs disagree, and the docs are right):
 * `amend` rewrites the part of an answer the description gets wrong into what the description wants, and
 * returns undefined when the answer has no such part. The rest of the answer is checked as it came.
 */
export type KnownSpecError = {
  /** Which answers it concerns. */
  applies: (call: { template: string; method: string; status: number }) => boolean;
  amend: (body: unknown) => unknown;
  reason: string;
};

export class DiscordSpec {
  private readonly ajv: Ajv2020;
  private readonly operations: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(file: string) {
    const spec = JSON.parse(readFileSync(file, 'utf8')) as Json & { paths: Record<string, Json> };
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    this.ajv.addSchema({ ...spec, $id: SPEC_ID });
    for (const [template, item] of Object.entries(spec.paths)) {
      const shared = (item.parameters ?? []) as Parameter[];
      for (const method of METHODS) {
        const op = item[method] as Json | undefined;
        if (!op) continue;
        const names: string[] = [];
        const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
          names.push(name);
          return '([^/]+)';
        });
        this.operations.push({
          template,
          method: method.toUpperCase(),
          parameters: [...shared, ...((op.parameters ?? []) as Parameter[])],
          ...(op.requestBody ? { requestBody: op.requestBody as Json } : {}),
          responses: (op.responses ?? {}) as Record<string, Json>,
          pattern: new RegExp(`^${source}$`),
          names,
        });
      }
    }
    // A literal segment wins over a parameter (`/users/@me` before `/users/{user_id}`).
    this.operations.sort((a, b) => a.names.length - b.names.length);
  }

  /** The operation a method and path (below /api/v10, `@me` in either spelling) is, or undefined. */
  operation(method: string, pathname: string): (Operation & { params: Record<string, string> }) | undefined {
    const decoded = pathname.replace(/%40/gi, '@');
    for (const op of this.operations) {
      if (op.method !== method) continue;
      const m = op.pattern.exec(decoded);
      if (!m) continue;
      const params = Object.fromEntries(op.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
      return { ...op, params };
    }
    return undefined;
  }

  /** Every way the client's request departs from the description (empty when it fits). */
  requestProblems(x: PlatformExchange): string[] {
    const problems: string[] = [];
    const url = new URL(x.url, 'http://platform.invalid');
    if (!url.pathname.startsWith(`${API_PREFIX}/`)) return [`${x.method} ${x.url}: not under ${API_PREFIX}`];
    const op = this.operation(x.method, url.pathname.slice(API_PREFIX.length));
    if (!op) return [`${x.method} ${x.url}: no such operation in the description`];
    const where = `${x.method} ${op.template}`;
    const agent = header(x, 'user-agent');
    if (!agent || !/^DiscordBot \([^,()]+, [^,()]+\)/.test(agent))
      problems.push(`${where}: User-Agent "${agent ?? ''}" is not DiscordBot ($url, $versionNumber)`);
    const reason = header(x, 'x-audit-log-reason');
    if (reason !== undefined) {
      if (reason.length > 512) problems.push(`${where}: X-Audit-Log-Reason is ${reason.length} > 512 characters`);
      if (!/^[\x21-\x7e]*$/.test(reason) || !safeDecode(reason))
        problems.push(`${where}: X-Audit-Log-Reason "${reason}" is not URL-encoded`);
    }
    for (const p of op.parameters) {
      const value =
        p.in === 'path'
          ? op.params[p.name]
          : p.in === 'query'
            ? (url.searchParams.get(p.name) ?? undefined)
            : undefined;
      if (p.in === 'header') continue;
      if (value === undefined) {
        if (p.required) problems.push(`${where}: missing ${p.in} parameter ${p.name}`);
        continue;
      }
      if (p.schema)
        problems.push(...this.check(p.schema, coerce(this.resolve(p.schema), value), `${where} ${p.in} ${p.name}`));
    }
    const known = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
    for (const name of url.searchParams.keys())
      if (!known.has(name)) problems.push(`${where}: query parameter ${name} is not in the description`);
    if (op.requestBody) {
      const content = op.requestBody.content as Record<string, { schema?: Json }> | undefined;
      const type = (header(x, 'content-type') ?? '').split(';')[0]!.trim();
      const media = content?.[type];
      if (x.body !== undefined && Object.keys(x.body as object).length > 0) {
        if (!media) problems.push(`${where}: body of type "${type}" is not one the description takes`);
        else if (media.schema) problems.push(...this.check(media.schema, x.body, `${where} body`));
      } else if (op.requestBody.required) problems.push(`${where}: the required body is missing`);
    }
    return problems;
  }

  /**
   * Every way the answer departs from the schema the description gives for its status (the exact
   * status, else `4XX`/`5XX`, else `default`), less what `known` forgives; `forgiven` gets what was.
   */
  responseProblems(
    x: PlatformExchange,
    known: readonly KnownSpecError[],
    forgiven: (reason: string) => void,
  ): string[] {
    const url = new URL(x.url, 'http://platform.invalid');
    const op = this.operation(x.method, url.pathname.slice(API_PREFIX.length));
    if (!op) return [];
    const where = `${x.method} ${op.template} → ${x.status}`;
    const status = String(x.status);
    const response = op.responses[status] ?? op.responses[`${status[0]}XX`] ?? op.responses.default;
    if (!response) return [`${where}: the description has no answer with this status`];
    const resolved = this.resolve(response);
    const content = resolved.content as Record<string, { schema?: Json }> | undefined;
    if (!content) return x.responseText === '' ? [] : [`${where}: a body where the description has none`];
    const schema = content['application/json']?.schema;
    if (!(x.contentType ?? '').includes('application/json'))
      return [`${where}: content type ${x.contentType ?? 'none'}, not application/json`];
    if (!schema) return [];
    let body: unknown = JSON.parse(x.responseText);
    const call = { template: op.template, method: x.method, status: x.status };
    for (const k of known) {
      const amended = k.applies(call) ? k.amend(body) : undefined;
      if (amended === undefined) continue;
      forgiven(k.reason);
      body = amended;
    }
    const validate = this.validator(schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) => `${where}: ${e.instancePath || '(body)'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`,
    );
  }

  private resolve(node: Json): Json {
    let current = node;
    while (typeof current.$ref === 'string') {
      const pointer = current.$ref.replace(/^#\//, '').split('/');
      current = pointer.reduce<Json>((at, key) => at[key] as Json, this.ajv.getSchema(SPEC_ID)!.schema as Json);
    }
    return current;
  }

  private validator(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile(rebase(schema));
      this.compiled.set(key, v);
    }
    return v;
  }

  private check(schema: Json, value: unknown, where: string): string[] {
    const v = this.validator(schema);
    return v(value) ? [] : (v.errors ?? []).map((e) => `${where}: ${e.instancePath} ${e.message ?? e.keyword}`);
  }
}

/** A fragment's local `$ref`s point into the spec document registered under SPEC_ID. */
function rebase(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${SPEC_ID}#/`)) as Json;
}

/** A path or query value is text; the schema may want a number or boolean. */
function coerce(schema: Json, value: string): unknown {
  const types = [schema.type].flat();
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function header(x: PlatformExchange, name: string): string | undefined {
  const v = x.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function safeDecode(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
