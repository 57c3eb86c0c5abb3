import type { IncomingRequestLike, ServerResponseLike } from '../host-types';
import { createPluginHandler, type PluginHandler, type PluginHooks } from './plugin-handlers';

/**
 * Express (or Connect, or plain node:http) adapter: `app.use(pluginMiddleware(hooks))`. Typed with the
 * shapes of node's request and response (host-types.ts), so the SDK needs neither express nor its types
 * at run time, and its declarations need no Node types.
 * Uses `req.body` when a JSON parser ran before it, else reads the body itself (50 KB at most, the
 * service's own cap on config bodies).
 */
type Req = IncomingRequestLike;
type Next = (err?: unknown) => void;

const BODY_LIMIT = 50 * 1024;

async function readJson(req: Req): Promise<{ body: unknown; raw?: string }> {
  if (req.body !== undefined) return { body: req.body };
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const part of req) {
    const chunk = Buffer.from(part);
    size += chunk.length;
    if (size > BODY_LIMIT) throw Object.assign(new Error('body over 50 KB'), { status: 413 });
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { body: undefined, raw: text };
  try {
    return { body: JSON.parse(text), raw: text };
  } catch {
    throw Object.assign(new Error('body is not JSON'), { status: 400 });
  }
}

export type PluginMiddleware = ((req: Req, res: ServerResponseLike, next?: Next) => void) & { on: PluginHandler['on'] };

export function pluginMiddleware(hooks: PluginHooks): PluginMiddleware {
  const handler = createPluginHandler(hooks);
  const middleware = (req: Req, res: ServerResponseLike, next?: Next): void => {
    const method = req.method ?? 'GET';
    const path = req.path ?? new URL(req.url ?? '/', 'http://plugin').pathname;
    // Anything but the contract's routes passes through untouched, its body unread.
    if (!handler.matches(method, path)) return next ? next() : send(res, 404, { error: 'not found' });
    void (async () => {
      let body: { body: unknown; raw?: string };
      try {
        body = await readJson(req);
      } catch (err) {
        const status = (err as { status?: number }).status ?? 400;
        return send(res, status, { error: (err as Error).message });
      }
      const answer = await handler.handle({
        method,
        path,
        headers: req.headers,
        body: body.body,
        ...(body.raw !== undefined ? { rawBody: body.raw } : {}),
      });
      if (answer) send(res, answer.status, answer.body);
    })().catch((err: unknown) => (next ? next(err) : send(res, 500, { error: 'internal error' })));
  };
  const on: PluginHandler['on'] = (kind, fn) => handler.on(kind, fn);
  return Object.assign(middleware, { on });
}

function send(res: ServerResponseLike, status: number, body: unknown): void {
  if (status === 204) {
    res.statusCode = 204;
    res.end('');
    return;
  }
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}
