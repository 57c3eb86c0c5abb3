import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { createQuickstartPlugin } from './plugin';

// HTTPS with the local stack's plugin certificate (made by `bash scripts/start.sh` for 127.0.0.1 and
// already trusted by the service), so the service can call this plugin without further setup.
const DATA = path.resolve(__dirname, '..', '..', '..', '.data', 'plugin-tls');
const port = Number(process.env.QUICKSTART_PORT ?? 4443);
const apiUrl = process.env.ROLELINK_API_URL ?? 'http://127.0.0.1:3000';
const tls = { cert: readFileSync(process.env.QUICKSTART_TLS_CERT ?? path.join(DATA, 'cert.pem')), key: readFileSync(process.env.QUICKSTART_TLS_KEY ?? path.join(DATA, 'key.pem')) };

const server = https.createServer(tls, createQuickstartPlugin({ apiUrl }));
server.listen(port, '127.0.0.1', () => console.log(`quickstart plugin on https://127.0.0.1:${port}, pushing to ${apiUrl}`));
process.once('SIGINT', () => server.close()).once('SIGTERM', () => server.close());
