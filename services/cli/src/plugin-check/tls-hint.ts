import tls from 'node:tls';

/**
 * What `rolelink plugin check` adds to a TLS failure so a plugin author knows the next step:
 * an untrusted certificate names `--ca`, and a name mismatch lists the names the certificate does hold
 * (Node's own message lists only its IP addresses, empty for a certificate with DNS names only).
 */

/** Node's codes for "no trusted issuer": a self-signed certificate or an unknown private CA. */
const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

export const LOCAL_CA_HINT =
  'the local stack prints its plugin certificate\'s path in its summary ("Plugin certificate"; .data/plugin-tls/cert.pem on the default ports)';

export async function tlsHint(code: string | undefined, url: string, caGiven: boolean): Promise<string | null> {
  if (code && UNTRUSTED.has(code)) {
    return caGiven
      ? `the certificate is not signed by the --ca file: give the certificate (or CA) the plugin serves with; ${LOCAL_CA_HINT}`
      : `the certificate is not from a public CA: pass the certificate (or its CA) with --ca <file.pem>; ${LOCAL_CA_HINT}. The service itself trusts such a certificate only through NODE_EXTRA_CA_CERTS`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const { hostname } = new URL(url);
    const names = await certificateNames(url);
    const held =
      names === null
        ? 'its names could not be read'
        : names.length
          ? `it holds ${names.join(', ')}`
          : 'it holds no names';
    return `the certificate does not name ${hostname.replace(/^\[|\]$/g, '')}: ${held}. Use a URL with one of them, or serve a certificate for this host`;
  }
  if (code === 'CERT_HAS_EXPIRED')
    return 'the certificate has expired: serve a new one (the local stack writes a new one at every start)';
  return null;
}

/**
 * The subject alternative names (and common name) of the certificate served at `url`. Read on a second
 * connection that checks nothing, only after the real call failed its check, and never used to send
 * anything: the host is the one the check was asked to call.
 */
function certificateNames(url: string): Promise<string[] | null> {
  const { hostname, port } = new URL(url);
  const host = hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = tls.connect({
      host,
      port: Number(port || 443),
      rejectUnauthorized: false,
      ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }),
    });
    const done = (names: string[] | null) => {
      socket.destroy();
      resolve(names);
    };
    socket.setTimeout(5_000, () => done(null));
    socket.once('error', () => done(null));
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      const sans = (cert.subjectaltname ?? '')
        .split(',')
        .map((n) => n.trim().replace(/^IP Address:/, 'IP:'))
        .filter(Boolean);
      const cn = typeof cert.subject?.CN === 'string' ? cert.subject.CN : null;
      done(cn && !sans.some((n) => n.endsWith(`:${cn}`)) ? [...sans, `CN=${cn}`] : sans);
    });
  });
}
