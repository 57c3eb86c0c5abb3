import express, { type RequestHandler } from 'express';
import { AppError } from '@rolelink/runtime';
import { storedIdsCopyFromJson } from './json-id-reader';

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
  if (!req.is('application/json'))
    return next(new AppError(415, 'Content-Type must be application/json', 'unsupported_media_type'));
  next();
};

/** UTF-8 JSON (the charset absent or utf-8): the bodies idListBody reads itself; any other charset is express.json's. */
const UTF8_JSON = /^application\/json\s*(?:;\s*charset\s*=\s*"?utf-8"?\s*)?$/i;

/**
 * listBody for PUT /users: a body that is a plain array of id strings arrives as a StoredIdsCopy (the
 * ids already in the COPY body the replace sends PostgreSQL, json-id-reader.ts), never as 100,000
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
