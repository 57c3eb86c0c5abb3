import { Readable } from 'node:stream';
import type { Connection, Pool, PoolClient, Submittable } from 'pg';
import { fromStored } from '../client/user-id';

/**
 * GET /users body, streamed: a link's user IDs in ascending order as JSON array elements
 * (`"id","id",…`), straight from PostgreSQL's COPY output, in one REPEATABLE READ snapshot.
 *
 * Why not pg-copy-streams (the first version of this stream used it): PostgreSQL sends one CopyData
 * message per row, and pg-copy-streams cuts a Buffer for each before re-joining them, then a second pass
 * turned the lines into JSON. That cost more Node CPU per ID than PostgreSQL spends producing the row,
 * and capped the stream (docs/benchmarks.md, "What was slow"). Here each socket chunk is
 * read once and the JSON bytes are written in the same pass (no per-row object at all); Node then keeps
 * well ahead of PostgreSQL.
 *
 * The protocol handling follows pg-copy-streams' copy-to: the query borrows pg's socket reader for the
 * COPY and hands the bytes after CopyDone (CommandComplete, ReadyForQuery), or an ErrorResponse, back
 * to pg, which finishes the query as usual. A stream destroyed before the end (client went away) cannot
 * leave the connection mid-COPY: the client is released with an error, so the pool closes it.
 */
export function streamUserIdsJson(pool: Pool, linkId: string): Promise<{ stream: Readable; done: Promise<void> }> {
  return streamCopy(pool, linkId, 'json');
}

/**
 * The dashboard's CSV export of a list, the same way: `user_id,synced` then one line per
 * user in ascending order, `synced` true for the lowest `syncedLimit` (the synced set, spec 1). PostgreSQL
 * writes the CSV; each row's bytes go out as they come.
 */
export function streamUserIdsCsv(
  pool: Pool,
  linkId: string,
  syncedLimit: number,
): Promise<{ stream: Readable; done: Promise<void> }> {
  return streamCopy(pool, linkId, 'csv', syncedLimit);
}

async function streamCopy(
  pool: Pool,
  linkId: string,
  format: 'json' | 'csv',
  syncedLimit = 0,
): Promise<{ stream: Readable; done: Promise<void> }> {
  // linkId is a decimal string validated upstream; COPY cannot take bind parameters.
  if (!/^\d+$/.test(linkId)) throw new Error('invalid link id');
  if (!Number.isSafeInteger(syncedLimit) || syncedLimit < 0) throw new Error('invalid synced limit');
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
  const copy =
    format === 'json'
      ? new CopyOut(
          `COPY (SELECT ${fromStored('user_id')} FROM link_user WHERE link_id = ${linkId} ORDER BY link_user.user_id) TO STDOUT`,
          'json',
        )
      : new CopyOut(
          `COPY (SELECT ${fromStored('user_id')} AS user_id, row_number() OVER (ORDER BY link_user.user_id) <= ${syncedLimit} AS synced
                   FROM link_user WHERE link_id = ${linkId} ORDER BY link_user.user_id) TO STDOUT WITH (FORMAT csv, HEADER)`,
          'rows',
        );
  const done = new Promise<void>((resolve, reject) => {
    copy.on('error', (err: Error) => {
      release(err);
      reject(err);
    });
    copy.on('end', () => {
      copy.ended = true;
      commit(client).then(
        () => (release(), resolve()),
        (err: Error) => (release(err), reject(err)),
      );
    });
    copy.on('close', () => {
      if (copy.ended) return;
      const err = new Error('user list stream closed before its end');
      release(err); // mid-COPY: the pool must close this connection, not reuse it
      reject(err);
    });
  });
  done.catch(() => undefined);
  client.query(copy);
  return { stream: copy, done };
}

function commit(client: PoolClient): Promise<void> {
  return client.query('COMMIT').then(() => undefined);
}

const CopyData = 0x64; // d
const CopyOutResponse = 0x48; // H
const CopyDone = 0x63; // c
const ErrorResponse = 0x45; // E
// May arrive between CopyData messages (protocol-flow: COPY); skipped.
const Asynchronous = new Set([0x4e /* N notice */, 0x53 /* S parameter status */, 0x41 /* A notification */]);

type DataHandler = (chunk: Buffer) => void;

/**
 * COPY's output as a stream: `json` turns each row (one id) into a JSON array element; `rows` passes each
 * row's bytes through as they are (a CSV line).
 */
class CopyOut extends Readable implements Submittable {
  ended = false;
  private connection: Connection | null = null;
  private pgDataHandler: DataHandler | null = null;
  private carry: Buffer | null = null;
  private first = true;
  private wanted = false;
  private forwarding = false;
  private detached = false;
  private readonly onReadable = () => this.forward();

  constructor(
    private readonly text: string,
    private readonly format: 'json' | 'rows',
  ) {
    super({ highWaterMark: 256 * 1024 });
  }

  submit(connection: Connection): void {
    this.connection = connection;
    const socket = connection.stream;
    const handler = socket.listeners('data')[0] as DataHandler | undefined;
    if (!handler || socket.listenerCount('data') !== 1) throw new Error('unexpected pg connection state for COPY');
    this.pgDataHandler = handler;
    socket.removeListener('data', handler);
    socket.pause();
    socket.on('readable', this.onReadable);
    connection.query(this.text);
  }

  // The pg client calls these on its active query once it has the socket back.
  handleCommandComplete(): void {}
  handleReadyForQuery(): void {}
  handleError(err: Error): void {
    this.destroy(err);
  }

  override _read(): void {
    this.wanted = true;
    this.forward();
  }

  override _destroy(err: Error | null, cb: (error?: Error | null) => void): void {
    if (this.connection && !this.detached) {
      this.detached = true;
      this.connection.stream.removeListener('readable', this.onReadable); // the client is released with an error
    }
    cb(err);
  }

  private forward(): void {
    if (this.forwarding || !this.wanted || this.detached || !this.connection) return;
    this.forwarding = true;
    const socket = this.connection.stream;
    let chunk: Buffer | null;
    while (this.wanted && !this.detached && (chunk = socket.read() as Buffer | null) !== null) this.parse(chunk);
    this.forwarding = false;
  }

  /**
   * One pass over the socket bytes: each CopyData message `d<len>123\n` becomes `,"123"` (json) or its
   * payload as is (rows), written in place over the bytes already read (the output of a message is 3 or 5
   * bytes shorter than the message, so writing never overtakes reading): no output buffer is allocated at all. A message split across two
   * socket chunks is completed from the next one.
   */
  private parse(chunk: Buffer): void {
    let buf = chunk;
    if (this.carry) {
      const carry = this.carry;
      const head = carry.length >= 5 ? carry : Buffer.concat([carry, chunk.subarray(0, 5 - carry.length)]);
      const missing = head.length < 5 ? Infinity : 1 + head.readUInt32BE(1) - carry.length;
      if (missing > chunk.length) {
        this.carry = Buffer.concat([carry, chunk]);
        return;
      }
      this.carry = null;
      const rest = chunk.subarray(missing);
      if (!this.scan(Buffer.concat([carry, chunk.subarray(0, missing)]), rest)) return;
      buf = rest;
    }
    this.scan(buf, null);
  }

  /** Converts the whole messages of buf in place and pushes them; false once pg has the socket back. */
  private scan(buf: Buffer, after: Buffer | null): boolean {
    const end = buf.length;
    let o = 0;
    let off = 0;
    while (off + 5 <= end) {
      const code = buf[off]!;
      if (code === ErrorResponse) return this.handBack(buf, o, off, after, false);
      const next = off + 1 + buf.readUInt32BE(off + 1);
      if (next > end) break;
      if (code === CopyData && this.format === 'rows') {
        for (let k = off + 5; k < next; k++) buf[o++] = buf[k]!; // the row as PostgreSQL wrote it, \n included
      } else if (code === CopyData) {
        if (this.first) this.first = false;
        else buf[o++] = 0x2c; // ,
        buf[o++] = 0x22; // "
        for (let k = off + 5, last = next - 1; k < last; k++) buf[o++] = buf[k]!; // the digits, without the row's \n
        buf[o++] = 0x22;
      } else if (code !== CopyOutResponse && !Asynchronous.has(code)) {
        // CopyDone (or anything ending copy-out mode): pg takes over again after it.
        return this.handBack(buf, o, code === CopyDone ? next : off, after, true);
      }
      off = next;
    }
    if (off < end) this.carry = Buffer.from(buf.subarray(off)); // a copy: the bytes before it are being pushed
    if (o > 0) this.wanted = this.push(buf.subarray(0, o));
    return true;
  }

  private handBack(buf: Buffer, o: number, from: number, after: Buffer | null, finished: boolean): false {
    const rest = after ? Buffer.concat([buf.subarray(from), after]) : buf.subarray(from);
    if (o > 0) this.push(buf.subarray(0, o));
    const connection = this.connection!;
    const handler = this.pgDataHandler!;
    this.detached = true;
    connection.stream.removeListener('readable', this.onReadable);
    connection.stream.on('data', handler);
    handler(rest); // CommandComplete + ReadyForQuery, or the ErrorResponse pg turns into handleError
    // pg's handler may pause the socket on back-pressure of its own; it resumes reading on the next tick.
    process.nextTick(() => connection.stream.resume());
    if (finished) this.push(null);
    return false;
  }
}
