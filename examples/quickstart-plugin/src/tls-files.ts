import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export type TlsFiles = { cert: Buffer; key: Buffer };

/**
 * The certificate and key the plugin serves with: the local stack's (the service trusts it), from
 * QUICKSTART_TLS_CERT / QUICKSTART_TLS_KEY, else `.data/plugin-tls/` (the stack on its default ports).
 * A missing file is a message saying where to find it, not a stack trace: with other ports the
 * stack writes it into a per-instance folder, which its summary prints as "Plugin certificate".
 */
export function readTlsFiles(env: NodeJS.ProcessEnv, dataDir: string): TlsFiles {
  const certFile = env.QUICKSTART_TLS_CERT ?? path.join(dataDir, 'plugin-tls', 'cert.pem');
  const keyFile = env.QUICKSTART_TLS_KEY ?? path.join(path.dirname(certFile), 'key.pem');
  const missing = [certFile, keyFile].filter((f) => !existsSync(f));
  if (missing.length) throw new Error(missingMessage(missing, env.QUICKSTART_TLS_CERT === undefined, dataDir));
  return { cert: readFileSync(certFile), key: readFileSync(keyFile) };
}

function missingMessage(missing: string[], defaulted: boolean, dataDir: string): string {
  const others = perInstanceCerts(dataDir);
  return [
    `No TLS ${missing.length > 1 ? 'certificate or key' : path.basename(missing[0]!) === 'key.pem' ? 'key' : 'certificate'} at ${missing.map((f) => path.relative(process.cwd(), f) || f).join(' and ')}.`,
    'The local stack writes the plugin certificate when it starts (bash scripts/start.sh), and the service trusts only that one;',
    'its summary prints where, as "Plugin certificate". On ports other than the defaults it is in a per-instance folder.',
    defaulted
      ? "Set QUICKSTART_TLS_CERT to it (QUICKSTART_TLS_KEY defaults to key.pem beside it) and ROLELINK_API_URL to the stack's API."
      : 'Check QUICKSTART_TLS_CERT and QUICKSTART_TLS_KEY.',
    ...(others.length
      ? [`Certificates the stack wrote here: ${others.join(', ')}`]
      : ['No stack has written one here yet: start it first.']),
  ].join('\n');
}

/** `.data/plugin-tls*` folders holding a certificate (one per stack instance that ran here). */
function perInstanceCerts(dataDir: string): string[] {
  if (!existsSync(dataDir)) return [];
  return readdirSync(dataDir)
    .filter((d) => d.startsWith('plugin-tls') && existsSync(path.join(dataDir, d, 'cert.pem')))
    .map((d) => path.relative(process.cwd(), path.join(dataDir, d, 'cert.pem')));
}
