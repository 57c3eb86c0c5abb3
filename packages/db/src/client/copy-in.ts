import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/**
 * `COPY … FROM STDIN` of a body in the format the statement names (text lines, or FORMAT binary), on a
 * client, in whatever transaction it is in. Resolves when PostgreSQL has taken every row; an error of
 * the COPY rejects and leaves the transaction aborted, as any failed statement does.
 */
export async function copyIn(c: PoolClient, copySql: string, body: string | Buffer): Promise<void> {
  await pipeline(Readable.from([body]), c.query(copyFrom(copySql)));
}
