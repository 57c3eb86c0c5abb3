import { AppError } from './app-error';

/** What clients are told while PostgreSQL restarts or fails over; the write was rolled back, so a retry is safe. */
export const DATABASE_UNAVAILABLE_MESSAGE = 'Database temporarily unavailable, nothing was written; retry shortly';
/** Seconds a client should wait before retrying (a fast restart or a managed failover takes a few). */
export const DATABASE_RETRY_AFTER_S = 5;

// SQLSTATE class 08 (connection exception), 57P01–57P03 (admin/crash shutdown, cannot connect now) and
// 53300 (too_many_connections: max_connections reached, e.g. every replica's pool refilling at once after
// a restart; no connection for this request, exactly as a refused one, and it passes as others close).
const OUTAGE_SQLSTATE = /^(08|57P0[123]|53300$)/;
const OUTAGE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND']);
// node-postgres reports a lost or unobtainable connection with these messages and no code.
const OUTAGE_MESSAGE =
  /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed/i;

/**
 * A PostgreSQL outage as the one 503 of the spec's error shape, or null for any other error. Used by the
 * error middleware so a restart mid-request is a clear, retryable answer rather than a 500 with a stack.
 */
export function fromDatabaseOutage(err: unknown): AppError | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  const outage =
    (typeof code === 'string' && (OUTAGE_SQLSTATE.test(code) || OUTAGE_SOCKET.has(code))) ||
    OUTAGE_MESSAGE.test(err.message) ||
    // Prisma's driver adapter wraps the pg error; its cause carries the original.
    (err.cause !== undefined && err.cause !== err && fromDatabaseOutage(err.cause) !== null);
  return outage ? new AppError(503, DATABASE_UNAVAILABLE_MESSAGE, 'database_unavailable') : null;
}
