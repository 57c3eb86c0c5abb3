import type { Readable } from 'node:stream';
import type { Request, Response } from 'express';

/**
 * Sends a database stream (a COPY of a list: GET /users, the dashboard's CSV export) as the response body,
 * between an optional head and tail, after the status and headers are set. The stream is stopped when the
 * client's socket closes, or its connection stays idle in transaction for good: that starved the pool and
 * held back vacuum under load (docs/reliability.md, soak). The socket is the one signal that cannot be
 * missed: the request's 'close' may have fired already while the pool checkout and BEGIN were awaited, and
 * a keep-alive request queued behind the socket's current response never gets a 'close' of its response
 * when the socket goes. A failure after the status is on the wire truncates the body (destroys the
 * response): the only honest signal left.
 */
export async function sendStream(
  req: Request,
  res: Response,
  body: { stream: Readable; done: Promise<void> },
  frame: { head?: string; tail?: string } = {},
): Promise<void> {
  const { stream, done } = body;
  if (frame.head) res.write(frame.head);
  stream.pipe(res, { end: false });
  const socket = req.socket;
  const stop = () => {
    socket.off('close', stop);
    stream.destroy();
  };
  if (res.destroyed || socket.destroyed) stop();
  else {
    socket.once('close', stop);
    res.once('close', stop);
  }
  try {
    await done;
    res.end(frame.tail ?? '');
  } catch {
    res.destroy();
  }
}
