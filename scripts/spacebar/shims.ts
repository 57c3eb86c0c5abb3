// A proxy in front of Spacebar that rewrites the deviations from Discord the product meets, one named shim
// per row of ../shared/platforms/README.md's table ("How Spacebar differs from Discord"). Each shim changes only
// what its row describes, so a failure the shims do not explain is a new deviation (or the product's fault).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Answer = { status: number; headers: Record<string, string>; body: unknown };
type Forward = (method: string, path: string, headers: Record<string, string>, body?: Buffer) => Promise<Answer>;

export type Shim = {
  /** `row<N>-<what>`: the README table's row it stands for. */
  name: string;
  /** Rewrites the request path before it is sent. */
  path?: (path: string, method: string) => string;
  /** Rewrites a successful answer; may ask Spacebar more with `forward` (the caller's headers). */
  answer?: (
    path: string,
    method: string,
    answer: Answer,
    forward: (path: string) => Promise<Answer>,
  ) => Promise<Answer>;
};

const GUILD = /^\/api\/v10\/guilds\/(\d+)$/;
const MEMBERS = /^\/api\/v10\/guilds\/(\d+)\/members(\?.*)?$/;
const MEMBER = /^\/api\/v10\/guilds\/(\d+)\/members\/(\d+)$/;

/** Every shim, by the README table's row. The test names the ones it runs with. */
export const SHIMS: Shim[] = [
  {
    name: 'row1-users-me-encoded',
    path: (path) => path.replace(/\/users\/%40me(?=\/|\?|$)/g, '/users/@me'),
  },
  {
    name: 'row2-guild-roles',
    answer: async (path, method, answer, forward) => {
      const guild = GUILD.exec(path.split('?')[0]!);
      if (method !== 'GET' || !guild || answer.status !== 200 || !isObject(answer.body) || 'roles' in answer.body)
        return answer;
      const roles = await forward(`/api/v10/guilds/${guild[1]}/roles`);
      return { ...answer, body: { ...answer.body, roles: roles.body } };
    },
  },
  {
    name: 'row3-members-after',
    path: (path, method) => {
      if (method !== 'GET' || !MEMBERS.test(path)) return path;
      const url = new URL(path, 'http://x');
      if (!url.searchParams.has('after')) url.searchParams.set('after', '0');
      return `${url.pathname}${url.search}`;
    },
  },
  {
    name: 'row4-listed-member-user-roles',
    answer: async (path, method, answer, forward) => {
      const list = MEMBERS.exec(path);
      if (method !== 'GET' || !list || answer.status !== 200 || !Array.isArray(answer.body)) return answer;
      const full = [];
      for (const member of answer.body as Record<string, unknown>[]) {
        if ('user' in member && 'roles' in member) full.push(member);
        else full.push((await forward(`/api/v10/guilds/${list[1]}/members/${String(member.id)}`)).body);
      }
      return { ...answer, body: full };
    },
  },
  {
    name: 'row15-member-roles-everyone',
    answer: (path, method, answer) => {
      const guildId = (MEMBER.exec(path) ?? MEMBERS.exec(path))?.[1];
      if (method !== 'GET' || !guildId || answer.status !== 200) return Promise.resolve(answer);
      const strip = (m: unknown) =>
        isObject(m) && Array.isArray(m.roles) ? { ...m, roles: m.roles.filter((r) => r !== guildId) } : m;
      return Promise.resolve({
        ...answer,
        body: Array.isArray(answer.body) ? answer.body.map(strip) : strip(answer.body),
      });
    },
  },
];

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export type ShimProxy = { apiBase: string; close(): Promise<void>; applied: Map<string, number> };

/** Listens on a free loopback port and forwards to `target` (Spacebar's origin) through `shims`, in order. */
export async function startShimProxy(target: string, shims: Shim[]): Promise<ShimProxy> {
  const applied = new Map<string, number>();
  const send: Forward = async (method, path, headers, body) => {
    const res = await fetch(`${target}${path}`, { method, headers, ...(body?.length ? { body } : {}) });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    const out: Record<string, string> = {};
    res.headers.forEach((value, key) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(key)) out[key] = value;
    });
    return { status: res.status, headers: out, body: type.includes('json') && text ? JSON.parse(text) : text };
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const method = req.method ?? 'GET';
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
        let path = req.url ?? '/';
        for (const shim of shims) {
          const rewritten = shim.path?.(path, method) ?? path;
          if (rewritten !== path) applied.set(shim.name, (applied.get(shim.name) ?? 0) + 1);
          path = rewritten;
        }
        let answer = await send(method, path, headers, Buffer.concat(chunks));
        const forward = (p: string) => send('GET', p, headers);
        for (const shim of shims) {
          if (!shim.answer) continue;
          const before = answer;
          answer = await shim.answer(path, method, answer, forward);
          // Counted only when the answer changed: a shim that never changes one stands for a fixed deviation.
          if (JSON.stringify(answer.body) !== JSON.stringify(before.body))
            applied.set(shim.name, (applied.get(shim.name) ?? 0) + 1);
        }
        const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        res.writeHead(answer.status, answer.headers).end(answer.status === 204 ? undefined : body);
      })().catch((err: unknown) => {
        res.writeHead(502, { 'content-type': 'text/plain' }).end(`shim proxy: ${String(err)}`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    apiBase: `http://127.0.0.1:${port}/api`,
    applied,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
