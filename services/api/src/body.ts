import express, { type RequestHandler } from 'express';
import { isUserId, userIdProblem } from '@rolelink/contracts';
import { StoredIdsCopy, storedIdsCopyFromJson } from '@rolelink/db/list';
import { AppError } from '@rolelink/runtime';
import { readExpiryOf } from './expiry';

/**
 * JSON body parsing for the two routes that take ID arrays. 100,000 IDs are about 2.3 MB of JSON; the
 * limit leaves room for whitespace. Other routes parse no body at all. A proxy in front must allow more than
 * this (scripts/manifests/ingress.ts checks the Ingress), so an oversized body gets the spec's JSON 413.
 */
export const LIST_BODY_LIMIT = '4mb';

export function listBody(): RequestHandler[] {
  return [jsonOnly, jsonBody()];
}

const jsonBody = () => express.json({ limit: LIST_BODY_LIMIT, strict: false });

const jsonOnly: RequestHandler = (req, _res, next) => {
  if (!req.is('application/json')) return next(new AppError(415, 'Content-Type must be application/json', 'unsupported_media_type'));
  next();
};

/** UTF-8 JSON (the charset absent or utf-8): the bodies idListBody reads itself; any other charset is express.json's. */
const UTF8_JSON = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * listBody for PUT /users: a body that is a plain array of id strings arrives as a StoredIdsCopy (the
 * ids already in the COPY body the replace sends PostgreSQL, db storedIdsCopyFromJson), never as 100,000
 * JavaScript strings; every other body as listBody leaves it. Reading (the size limit, inflation, a
 * client that stops sending) is express.raw's, so its errors are express.json's; a body the reader does
 * not take is then parsed as express.json parses it (an empty body reads `{}`, a byte-order mark is
 * dropped, malformed JSON is its 400), so the route's checks and messages are the same either way.
 */
export function idListBody(): RequestHandler[] {
  const otherCharsets = jsonBody();
  return [
    jsonOnly,
    express.raw({ limit: LIST_BODY_LIMIT, type: (req) => UTF8_JSON.test(req.headers['content-type'] ?? '') }),
    (req, res, next) => {
      if (!Buffer.isBuffer(req.body)) return otherCharsets(req, res, next);
      const bytes = req.body;
      try {
        req.body = storedIdsCopyFromJson(bytes) ?? parseJson(bytes);
      } catch (err) {
        return next(err);
      }
      next();
    },
  ];
}

/** body-parser's JSON parse (strict: false) of a UTF-8 body, and the answer the app gives to its failure. */
function parseJson(bytes: Buffer): unknown {
  if (bytes.length === 0) return {};
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw AppError.malformedJson(); // what express.json's parse failure maps to
  }
}

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
export function readIdItems(body: unknown, max: number, tooMany: (count: number) => AppError, now: number): { ids: string[]; expiries: ItemExpiries | null } {
  if (!Array.isArray(body)) throw AppError.validation([{ field: 'body', message: 'must be a JSON array of user ID strings' }]);
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
export function readIdList(body: unknown, max: number, tooMany: (count: number) => AppError, now: number): { ids: string[] | StoredIdsCopy; expiries: ItemExpiries | null } {
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
    if (!isUserId(item.id)) throw AppError.validation([{ field: `body.${i}.id`, message: (typeof item.id === 'string' && userIdProblem(item.id)) || 'must be a 17 to 20 digit snowflake string' }]);
    const at = readExpiryOf(item, now, `body.${i}.`, ['id']);
    ids.push(item.id);
    if (at) {
      expiries.ids.push(item.id);
      expiries.at.push(at.toISOString());
    }
  }
  return { ids, expiries };
}

const badId = (i: number, v: unknown) => AppError.validation([{ field: `body.${i}`, message: (typeof v === 'string' && userIdProblem(v)) || 'must be a 17 to 20 digit snowflake string' }]);
