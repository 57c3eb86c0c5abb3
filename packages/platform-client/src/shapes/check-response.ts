import { DefaultRestOptions, type RESTOptions, type ResponseLike } from '@discordjs/rest';
import { routeOf } from '../route';
import { routeShape } from './routes';
import { PlatformShapeError, shapeErrorOf } from './shape-error';

/**
 * Checks a successful answer against the shape of what its route returns (routes.ts), before the REST
 * library or any caller reads it. The answer goes on as the platform sent it (the check keeps nothing of
 * the parse); an answer of the wrong shape throws PlatformShapeError instead, after `onShapeError`.
 */
export async function checkResponseShape(
  method: string,
  routeKey: string,
  res: ResponseLike,
  onShapeError?: (err: PlatformShapeError) => void,
): Promise<ResponseLike> {
  const shape = res.ok && res.status !== 204 ? routeShape(routeKey) : undefined;
  if (!shape) return res;
  const fail = (err: PlatformShapeError): never => {
    onShapeError?.(err);
    throw err;
  };
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  let body: unknown;
  try {
    if (!type.startsWith('application/json')) throw new Error('not JSON');
    body = JSON.parse(text);
  } catch {
    return fail(
      new PlatformShapeError(
        method,
        shape.path,
        'not_json',
        '',
        `answered ${res.status} without a JSON body (content-type ${type || 'none'})`,
      ),
    );
  }
  const parsed = shape.schema.safeParse(body);
  if (!parsed.success) return fail(shapeErrorOf(method, shape.path, body, parsed.error));
  return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
}

type MakeRequest = RESTOptions['makeRequest'];

/** A REST `makeRequest` whose answers are shape-checked (for REST instances other than the bot's client). */
export function shapeCheckedRequest(
  send: MakeRequest = DefaultRestOptions.makeRequest,
  onShapeError?: (err: PlatformShapeError) => void,
): MakeRequest {
  return async (url, init) => {
    const method = (init.method ?? 'GET').toUpperCase();
    return checkResponseShape(method, routeOf(method, url).routeKey, await send(url, init), onShapeError);
  };
}
