import type { Request, RequestHandler, Response } from 'express';
import type { z } from 'zod';
import type { LinkContext } from '@rolelink/db/links';
import type { AuthGuard } from '@rolelink/db/list';
import type { ParsedRequest } from '@rolelink/runtime';
import type { Authentication } from './link-auth';

type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';
type Schemas = { params?: z.ZodType; query?: z.ZodType };

/** What every handler of the link pipeline gets: the request, its validated input, and its link's authentication. */
type BaseRequest<S extends Schemas> = {
  req: Request;
  res: Response;
  input: ParsedRequest<S>;
  /** How the request was let through (LinkAuth). */
  how: Authentication;
};

/** A request authenticated by a read made for it: its link is final. */
export type LinkRequest<S extends Schemas = Schemas> = BaseRequest<S> & { link: LinkContext };

/**
 * A request of a route that may be authenticated from memory: its link is reached only through
 * `write`, the list write that re-checks the authentication in its own statement (LinkAuth.write), so
 * no success can rest on the remembered read alone.
 */
export type WriteRequest<S extends Schemas = Schemas> = BaseRequest<S> & {
  write: <T>(write: (link: LinkContext, guard?: AuthGuard) => Promise<T>) => Promise<T>;
};

type RouteBase<S extends Schemas> = {
  method: Method;
  /** Inside the link mount (`/users/:userId`); literal segments match case-insensitively, as Express's. */
  path: string;
  input: S;
  /** A check of the authenticated link before the input is checked (uploads: premium only); throws its refusal. */
  linkCheck?: (link: LinkContext) => void;
  /** Body readers (body-parser middleware), run in order after the input is checked. */
  body?: RequestHandler[];
  /** Idempotency-Key is honoured (idempotency.ts): after the body, before the handler. */
  idempotent?: true;
};

/**
 * One route of the link table. `auth: 'remembered'` declares that every success of the route is a
 * guarded list write, so the pipeline may let it through on the link as last read for its token.
 */
export type LinkRoute<S extends Schemas = Schemas> =
  | (RouteBase<S> & { auth: 'fresh'; handle(ctx: LinkRequest<S>): Promise<void> })
  | (RouteBase<S> & { auth: 'remembered'; handle(ctx: WriteRequest<S>): Promise<void> });

/** Declares a route, its handler typed by its schemas. */
export function linkRoute<S extends Schemas>(route: LinkRoute<S>): LinkRoute {
  return route;
}

/** A route with its path split for matching. */
export type CompiledRoute = LinkRoute & { segments: (string | { param: string })[]; template: string };

export function compileRoutes(mount: string, routes: readonly LinkRoute[]): CompiledRoute[] {
  return routes.map((r) => ({
    ...r,
    template: mount + r.path,
    segments: r.path
      .split('/')
      .slice(1)
      .map((s) => (s.startsWith(':') ? { param: s.slice(1) } : s.toLowerCase())),
  }));
}

/** A percent-escaped parameter decoded as Express's router does; one that is not valid UTF-8 escaping is kept as sent, for its schema to refuse. */
export function decodeParam(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The path's parameters if `route` matches `parts` (the path inside the mount, split on '/', the leading '' dropped). */
export function matchPath(route: CompiledRoute, parts: readonly string[]): Record<string, string> | null {
  const segs = route.segments;
  // One trailing slash is allowed (Express's non-strict routing).
  const n = parts.length === segs.length + 1 && parts[segs.length] === '' ? segs.length : parts.length;
  if (n !== segs.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const seg = segs[i]!;
    const part = parts[i]!;
    if (typeof seg === 'string') {
      if (part.length !== seg.length || part.toLowerCase() !== seg) return null;
    } else {
      if (part === '') return null;
      params[seg.param] = decodeParam(part);
    }
  }
  return params;
}

/**
 * The route for `method` at `parts`, first in table order (a HEAD takes the GET route), or the methods
 * the path has (for OPTIONS and the 404).
 */
export function findRoute(
  routes: readonly CompiledRoute[],
  method: string,
  parts: readonly string[],
): { route?: CompiledRoute; params?: Record<string, string>; allow: string[] } {
  const allow: string[] = [];
  for (const route of routes) {
    const params = matchPath(route, parts);
    if (!params) continue;
    if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { route, params, allow };
    allow.push(route.method);
    if (route.method === 'GET') allow.push('HEAD');
  }
  return { allow };
}
