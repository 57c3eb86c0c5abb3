import express, { type RequestHandler } from 'express';
import { AppError } from '@rolelink/runtime';

/**
 * A membership's expiry as the API accepts it (docs/api.md "Memberships that expire"): `expires_at`, an
 * RFC 3339 time with its offset, or `ttl_seconds`, a whole number of seconds from the request; one of them,
 * in the future, at most MAX_TTL_SECONDS ahead (a typo of a few digits is refused, not stored for ages).
 */
export const MAX_TTL_SECONDS = 10 * 366 * 24 * 3600;

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** Date.parse rolls 2034-02-31 over to March: each field is checked against its range first. */
function isRealTime(m: RegExpExecArray): boolean {
  const [y, mo, d, h, mi, sec, oh, om] = m.slice(1, 9).map((x) => Number(x ?? '0')) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth && h < 24 && mi < 60 && sec < 60 && oh < 24 && om < 60;
}

/** Parses `expires_at` (already known present); `field` names it in the 400. */
export function readExpiresAt(value: unknown, now: number, field: string): Date | null {
  if (value === null) return null;
  const match = typeof value === 'string' ? RFC3339.exec(value) : null;
  const ms = match && isRealTime(match) ? Date.parse(value as string) : NaN;
  if (Number.isNaN(ms)) throw invalid(field, 'must be an RFC 3339 time with a time zone, e.g. 2026-12-24T18:00:00Z');
  if (ms <= now) throw invalid(field, 'must be in the future');
  if (ms > now + MAX_TTL_SECONDS * 1000) throw invalid(field, 'must be at most 10 years ahead');
  return new Date(ms);
}

export function readTtlSeconds(value: unknown, now: number, field: string): Date {
  if (typeof value !== 'number' || !Number.isInteger(value)) throw invalid(field, 'must be a whole number of seconds');
  if (value < 1) throw invalid(field, 'must be at least 1');
  if (value > MAX_TTL_SECONDS) throw invalid(field, `must be at most ${MAX_TTL_SECONDS} (10 years)`);
  return new Date(now + value * 1000);
}

/**
 * The expiry of one object `{expires_at}` or `{ttl_seconds}` (neither: permanent, null). `prefix` is the
 * object's own path in the body ('' for POST's body, `body.3.` for an item of a PUT), `allowed` the keys the
 * object may hold besides the expiry.
 */
export function readExpiryOf(
  obj: Record<string, unknown>,
  now: number,
  prefix: string,
  allowed: readonly string[] = [],
): Date | null {
  for (const key of Object.keys(obj)) {
    if (key !== 'expires_at' && key !== 'ttl_seconds' && !allowed.includes(key))
      throw invalid(prefix + key, 'unknown field (expected expires_at or ttl_seconds)');
  }
  const hasAt = obj.expires_at !== undefined;
  const hasTtl = obj.ttl_seconds !== undefined;
  if (hasAt && hasTtl) throw invalid(prefix + 'ttl_seconds', 'send either expires_at or ttl_seconds, not both');
  if (hasAt) return readExpiresAt(obj.expires_at, now, prefix + 'expires_at');
  if (hasTtl) return readTtlSeconds(obj.ttl_seconds, now, prefix + 'ttl_seconds');
  return null;
}

/**
 * POST /users/:userId's optional body. Parsed only when it is sent as JSON (express.json's own type check):
 * a request without a body (or with another type, which the API has always ignored here) leaves req.body
 * undefined and adds a permanent member, as before.
 */
export function expiryBody(): RequestHandler {
  return express.json({ limit: '2kb', strict: false });
}

/** The expiry of POST /users/:userId: null without a body, `{}`, or `{"expires_at": null}`. */
export function readPostExpiry(body: unknown, now: number): Date | null {
  if (
    body === undefined ||
    (typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)
  )
    return null;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('body', 'must be a JSON object: {"expires_at": "<RFC 3339 time>"} or {"ttl_seconds": <seconds>}');
  return readExpiryOf(body as Record<string, unknown>, now, '');
}

const invalid = (field: string, message: string) => AppError.validation([{ field, message }]);
