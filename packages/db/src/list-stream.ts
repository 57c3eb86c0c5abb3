import { Transform, type Readable } from 'node:stream';
import type { Pool } from 'pg';
import { to as copyTo } from 'pg-copy-streams';

/**
 * Streams a link's user ids in ascending order as JSON array elements (`"id","id",…`), straight from
 * PostgreSQL's COPY output: memory stays flat whatever the list size, and no row object is ever built.
 * The COPY runs in a REPEATABLE READ transaction so the stream is one consistent snapshot even while
 * writers replace the list. The caller writes the surrounding JSON.
 */
export async function streamUserIds(pool: Pool, linkId: string): Promise<{ stream: Readable; done: Promise<void> }> {
  const client = await pool.connect();
  let released = false;
  const release = (err?: Error) => {
    if (released) return;
    released = true;
    client.release(err);
  };
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  } catch (err) {
    release(err as Error);
    throw err;
  }
  // linkId is a decimal string validated upstream; COPY cannot take bind parameters.
  if (!/^\d+$/.test(linkId)) throw new Error('invalid link id');
  const source = client.query(copyTo(`COPY (SELECT user_id FROM link_user WHERE link_id = ${linkId} ORDER BY user_id) TO STDOUT`));
  const toJson = idLinesToJsonElements();
  const done = new Promise<void>((resolve, reject) => {
    const fail = (err: Error) => {
      release(err);
      reject(err);
    };
    source.on('error', fail);
    toJson.on('error', fail);
    toJson.on('close', () => {
      if (!released) client.query('COMMIT').then(() => (release(), resolve()), fail);
    });
    toJson.on('end', () => {
      client.query('COMMIT').then(() => (release(), resolve()), fail);
    });
  });
  done.catch(() => undefined);
  source.pipe(toJson);
  return { stream: toJson, done };
}

/** "123\n456\n" → `"123","456"` across arbitrary chunk boundaries. */
export function idLinesToJsonElements(): Transform {
  let carry = '';
  let first = true;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      const text = carry + chunk.toString('latin1');
      const cut = text.lastIndexOf('\n');
      if (cut < 0) {
        carry = text;
        return cb();
      }
      carry = text.slice(cut + 1);
      const body = text.slice(0, cut);
      const out = (first ? '"' : ',"') + body.replaceAll('\n', '","') + '"';
      first = false;
      cb(null, out);
    },
    flush(cb) {
      if (carry) cb(null, (first ? '"' : ',"') + carry + '"');
      else cb();
    },
  });
}
