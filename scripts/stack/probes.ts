import http from 'node:http';
import https from 'node:https';

/** GETs `url` and resolves its status (0 when nothing answers), giving up after `timeoutMs`. */
export function getStatus(
  url: string,
  { ca, timeoutMs = 2000 }: { ca?: string; timeoutMs?: number } = {},
): Promise<number> {
  return new Promise((resolve) => {
    const target = new URL(url);
    const lib = target.protocol === 'https:' ? https : http;
    const req = lib.get(
      target,
      { ...(ca ? { ca } : {}), timeout: timeoutMs, headers: { Connection: 'close' } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
  });
}

export const answers200 = (url: string, ca?: string) => async () => (await getStatus(url, ca ? { ca } : {})) === 200;
