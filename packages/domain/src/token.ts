import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { asKeyring, openToken, sealToken, type TokenKeyring } from './token-keyring';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 43; // 43 base62 characters ≈ 256 bits of entropy
const CHECK_LENGTH = 4;
export const TOKEN_PATTERN = new RegExp(`^rl_[0-9A-Za-z]{${BODY_LENGTH + CHECK_LENGTH}}$`);

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      // Rejection sampling keeps the alphabet uniform (248 = 4 × 62).
      if (b < 248 && out.length < length) out += ALPHABET[b % 62];
    }
  }
  return out;
}

function checksum(body: string): string {
  const digest = createHash('sha256').update(body).digest();
  return Array.from(digest.subarray(0, CHECK_LENGTH), (b) => ALPHABET[b % 62]).join('');
}

/** `rl_` + 43 random base62 chars + 4-char checksum, so a mistyped token is refused without a database look-up. */
export function generateToken(): string {
  const body = randomBase62(BODY_LENGTH);
  return `rl_${body}${checksum(body)}`;
}

export function isWellFormedToken(token: string): boolean {
  if (!TOKEN_PATTERN.test(token)) return false;
  const body = token.slice(3, 3 + BODY_LENGTH);
  const given = Buffer.from(token.slice(3 + BODY_LENGTH));
  const want = Buffer.from(checksum(body));
  return timingSafeEqual(given, want);
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * AES-256-GCM under the newest key of the ring (token-keyring.ts has the formats). The raw token is needed
 * again to call the plugin and sign iframe JWTs. A bare key is a ring of that key alone.
 */
export function encryptToken(token: string, key: Buffer | TokenKeyring): Buffer {
  return sealToken(token, asKeyring(key));
}

/** Decrypts under whichever configured key the ciphertext was encrypted with; throws when none opens it. */
export function decryptToken(blob: Uint8Array, key: Buffer | TokenKeyring): string {
  return openToken(blob, asKeyring(key)).token;
}
