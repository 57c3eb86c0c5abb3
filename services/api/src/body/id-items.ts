import { isUserId, userIdProblem } from '@rolelink/contracts';
import { StoredIdsCopy } from '@rolelink/db/list';
import { AppError } from '@rolelink/runtime';
import { readExpiryOf } from './expiry-fields';

/**
 * Validates an ID array body. `tooMany` decides what an over-long array is: PUT answers 413 above its
 * plan's cap, a chunk answers 400 above 100,000 (spec 7). Element checks run without zod's per-item
 * objects: 100,000 regex tests take a few milliseconds.
 */
export function readIdArray(body: unknown, max: number, tooMany: (count: number) => AppError): string[] {
  const { ids, expiries } = readIdItems(body, max, tooMany, Date.now());
  if (expiries) throw AppError.validation([{ field: 'body', message: 'must be a JSON array of user ID strings' }]);
  return ids;
}

/** The users of a PUT or chunk that carry an expiry: parallel arrays (ids and RFC 3339 times). */
export type ItemExpiries = { ids: string[]; at: string[] };

/**
 * An ID array body whose items are ID strings or `{"id", "expires_at" | "ttl_seconds"}` objects (a
 * membership that ends on its own). The plain-string body, the common one, is checked in place and
 * returned as it is: no per-item object is built. The first object item switches to a second loop that
 * collects the IDs and the expiries.
 */
export function readIdItems(
  body: unknown,
  max: number,
  tooMany: (count: number) => AppError,
  now: number,
): { ids: string[]; expiries: ItemExpiries | null } {
  if (!Array.isArray(body))
    throw AppError.validation([{ field: 'body', message: 'must be a JSON array of user ID strings' }]);
  if (body.length > max) throw tooMany(body.length);
  for (let i = 0; i < body.length; i++) {
    const v: unknown = body[i];
    if (isUserId(v)) continue;
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return readWithExpiries(body as unknown[], i, now);
    throw badId(i, v);
  }
  return { ids: body as string[], expiries: null };
}

/** readIdItems for idListBody's bodies: a StoredIdsCopy (already checked id by id as it was read) or a parsed body. */
export function readIdList(
  body: unknown,
  max: number,
  tooMany: (count: number) => AppError,
  now: number,
): { ids: string[] | StoredIdsCopy; expiries: ItemExpiries | null } {
  if (!(body instanceof StoredIdsCopy)) return readIdItems(body, max, tooMany, now);
  if (body.sent > max) throw tooMany(body.sent); // the ids sent, repeats too, as readIdItems counts them
  return { ids: body, expiries: null };
}

function readWithExpiries(body: unknown[], from: number, now: number): { ids: string[]; expiries: ItemExpiries } {
  const ids = body.slice(0, from) as string[];
  const expiries: ItemExpiries = { ids: [], at: [] };
  for (let i = from; i < body.length; i++) {
    const v: unknown = body[i];
    if (isUserId(v)) {
      ids.push(v);
      continue;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badId(i, v);
    const item = v as Record<string, unknown>;
    if (!isUserId(item.id))
      throw AppError.validation([
        {
          field: `body.${i}.id`,
          message:
            (typeof item.id === 'string' && userIdProblem(item.id)) || 'must be a 17 to 20 digit snowflake string',
        },
      ]);
    const at = readExpiryOf(item, now, `body.${i}.`, ['id']);
    ids.push(item.id);
    if (at) {
      expiries.ids.push(item.id);
      expiries.at.push(at.toISOString());
    }
  }
  return { ids, expiries };
}

const badId = (i: number, v: unknown) =>
  AppError.validation([
    {
      field: `body.${i}`,
      message: (typeof v === 'string' && userIdProblem(v)) || 'must be a 17 to 20 digit snowflake string',
    },
  ]);
