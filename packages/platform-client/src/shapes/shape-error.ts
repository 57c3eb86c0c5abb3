import type { z } from 'zod';

export type ShapeProblem = 'missing' | 'invalid' | 'not_json';

/**
 * A platform answer of the wrong shape: a success status whose body lacks a field the product reads, or
 * has it of another type, or is no JSON at all. Raised at the client boundary, before any caller reads
 * the body, so the failure names the route and the field instead of surfacing later as a TypeError.
 * Not retried: the same platform answers the same way until it is fixed (or is not the platform we
 * speak to: PLATFORM_API_URL).
 */
export class PlatformShapeError extends Error {
  override readonly name = 'PlatformShapeError';
  constructor(
    readonly method: string,
    /** The route as the platform's docs name it, e.g. `/guilds/{guild.id}/members`. */
    readonly route: string,
    readonly problem: ShapeProblem,
    /** Where in the body, e.g. `roles` or `[0].user` (empty for the body itself). */
    readonly field: string,
    detail: string,
  ) {
    super(`${method} ${route} ${detail}`);
  }
}

/** `['roles', 2, 'permissions']` → `roles[2].permissions`; `[0, 'user']` → `[0].user`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let v = body;
  for (const key of path)
    v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

/** The first thing wrong with `body`, as a named error: "GET /guilds/{guild.id} answered without `roles`". */
export function shapeErrorOf(method: string, route: string, body: unknown, error: z.ZodError): PlatformShapeError {
  const issue = error.issues[0]!;
  const path = issue.path;
  const field = fieldPath(path);
  const value = valueAt(body, path);
  if (path.length === 0)
    return new PlatformShapeError(
      method,
      route,
      'invalid',
      '',
      `answered ${kindOf(body)}, not ${issue.code === 'invalid_type' ? `an ${issue.expected}` : 'what the platform documents'}`,
    );
  if (issue.code === 'invalid_type' && value === undefined)
    return new PlatformShapeError(method, route, 'missing', field, `answered without \`${field}\``);
  return new PlatformShapeError(
    method,
    route,
    'invalid',
    field,
    `answered \`${field}\` as ${kindOf(value)} (${issue.message.replace(/^Invalid input: /, '')})`,
  );
}
