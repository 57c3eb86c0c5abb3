import { mkdirSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { generate } from 'selfsigned';

export type TlsFiles = { cert: string; key: string };

/**
 * A fresh self-signed certificate for 127.0.0.1 / ::1 / localhost, and for `publicHost` (the public URL's
 * host name, e.g. `plugin` in docker-compose.local.yml) when it is another name. The service trusts it
 * through NODE_EXTRA_CA_CERTS pointing at `certFile` (never by turning certificate checks off).
 */
export async function writeSelfSignedCert(certFile: string, keyFile: string, publicHost?: string): Promise<TlsFiles> {
  const extraName =
    publicHost && !isIP(publicHost) && publicHost !== 'localhost' ? [{ type: 2 as const, value: publicHost }] : [];
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: new Date(Date.now() + 30 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }, { type: 2, value: 'localhost' }, ...extraName],
      },
    ],
  });
  mkdirSync(path.dirname(certFile), { recursive: true });
  mkdirSync(path.dirname(keyFile), { recursive: true });
  writeFileSync(certFile, pems.cert);
  writeFileSync(keyFile, pems.private, { mode: 0o600 });
  return { cert: pems.cert, key: pems.private };
}
