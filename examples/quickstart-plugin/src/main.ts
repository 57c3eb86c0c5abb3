import https from 'node:https';
import path from 'node:path';
import { listenErrorMessage } from './listen-error';
import { createQuickstartPlugin } from './plugin';
import { readTlsFiles, type TlsFiles } from './tls-files';

// HTTPS with the local stack's plugin certificate (made by `bash scripts/start.sh` for 127.0.0.1 and
// already trusted by the service), so the service can call this plugin without further setup.
const DATA = path.resolve(__dirname, '..', '..', '..', '.data');
const host = '127.0.0.1';
const port = Number(process.env.QUICKSTART_PORT ?? 4443);
const apiUrl = process.env.ROLELINK_API_URL ?? 'http://127.0.0.1:3000';

let tls: TlsFiles;
try {
  tls = readTlsFiles(process.env, DATA);
} catch (err) {
  console.error(`quickstart plugin: ${(err as Error).message}`);
  process.exit(1);
}

const server = https.createServer(tls, createQuickstartPlugin({ apiUrl }));
server.once('error', (err: NodeJS.ErrnoException) => {
  console.error(`quickstart plugin: ${listenErrorMessage(err, port, host)}`);
  process.exit(1);
});
server.listen(port, host, () => console.log(`quickstart plugin on https://${host}:${port}, pushing to ${apiUrl}`));
process.once('SIGINT', () => server.close()).once('SIGTERM', () => server.close());
