import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * One key that stored plugin tokens are encrypted under. `id` names it in what it encrypts; null is the
 * key of ROLELINK_SECRET_KEY alone, whose ciphertexts keep the format from before key IDs (no ID), so a
 * deployment that never rotates writes exactly what older releases read.
 */
export type TokenKey = { id: string | null; key: Buffer };

/** The configured keys, newest first: the first encrypts, every one decrypts. Never empty. */
export type TokenKeyring = { readonly keys: readonly TokenKey[] };

/** What a key ID may be: short, printable, and free of the `,` and `:` of ROLELINK_SECRET_KEYS. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;

/**
 * A ciphertext that names its key: MAGIC | id length (1 byte) | id (ASCII) | iv(12) | tag(16) | ciphertext.
 * The header is the GCM's additional data, so an ID swapped in a stored row fails authentication. The
 * older format (iv | tag | ciphertext) starts with a random IV, which may by chance begin with MAGIC:
 * decryption therefore falls back to the older format whenever the keyed reading fails.
 */
const MAGIC = Buffer.from([0x72, 0x6c, 0x6b, 0x01]); // "rlk" + format version 1

const IV = 12;
const TAG = 16;

export function keyring(keys: readonly TokenKey[]): TokenKeyring {
  if (keys.length === 0) throw new Error('a keyring needs at least one key');
  for (const k of keys) {
    if (k.key.length !== 32) throw new Error(`key ${k.id ?? '(no ID)'} is not 32 bytes`);
    if (k.id !== null && !KEY_ID_PATTERN.test(k.id)) throw new Error(`key ID ${JSON.stringify(k.id)} is not valid`);
  }
  return { keys };
}

/** A bare key (tests, tools that hold one key) as a keyring of that key alone, without ID. */
export function asKeyring(key: Buffer | TokenKeyring): TokenKeyring {
  return Buffer.isBuffer(key) ? keyring([{ id: null, key }]) : key;
}

function seal(plaintext: string, key: Buffer, aad: Buffer | null): Buffer {
  const iv = randomBytes(IV);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (aad) cipher.setAAD(aad);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ct]);
}

function open(body: Buffer, key: Buffer, aad: Buffer | null): string {
  const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, IV));
  if (aad) decipher.setAAD(aad);
  decipher.setAuthTag(body.subarray(IV, IV + TAG));
  return Buffer.concat([decipher.update(body.subarray(IV + TAG)), decipher.final()]).toString('utf8');
}

function header(id: string): Buffer {
  const ascii = Buffer.from(id, 'ascii');
  return Buffer.concat([MAGIC, Buffer.from([ascii.length]), ascii]);
}

/** The key ID a ciphertext names, with where its body starts; null for the format without ID. */
function keyedParts(blob: Buffer): { id: string; header: Buffer; body: Buffer } | null {
  if (blob.length < MAGIC.length + 1 || !blob.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const length = blob[MAGIC.length]!;
  const end = MAGIC.length + 1 + length;
  if (length === 0 || blob.length < end + IV + TAG) return null;
  const id = blob.subarray(MAGIC.length + 1, end).toString('ascii');
  if (!KEY_ID_PATTERN.test(id)) return null;
  return { id, header: blob.subarray(0, end), body: blob.subarray(end) };
}

/** Encrypts under the newest key: with its ID in front, or in the format without ID for a key without one. */
export function sealToken(token: string, ring: TokenKeyring): Buffer {
  const newest = ring.keys[0]!;
  if (newest.id === null) return seal(token, newest.key, null);
  const h = header(newest.id);
  return Buffer.concat([h, seal(token, newest.key, h)]);
}

/** What a stored ciphertext holds and which configured key opened it (`id` null: the format without ID). */
export type OpenedToken = { token: string; key: TokenKey; keyed: boolean };

/**
 * Decrypts with whichever configured key the ciphertext names; one without ID is tried under every key
 * (GCM's tag tells the right one). Throws, naming the key ID, when no configured key opens it.
 */
export function openToken(stored: Uint8Array, ring: TokenKeyring): OpenedToken {
  const blob = Buffer.isBuffer(stored) ? stored : Buffer.from(stored);
  const keyed = keyedParts(blob);
  if (keyed) {
    const key = ring.keys.find((k) => k.id === keyed.id);
    if (key) {
      try {
        return { token: open(keyed.body, key.key, keyed.header), key, keyed: true };
      } catch {
        // Not authentic under its named key: it may be an older ciphertext whose IV began like a header.
      }
    }
  }
  for (const key of ring.keys) {
    try {
      return { token: open(blob, key.key, null), key, keyed: false };
    } catch {
      // the next key
    }
  }
  throw new Error(
    keyed && !ring.keys.some((k) => k.id === keyed.id)
      ? `stored token is encrypted under key ID ${JSON.stringify(keyed.id)}, which is not configured (ROLELINK_SECRET_KEYS)`
      : 'stored token does not decrypt under any configured key (ROLELINK_SECRET_KEY, ROLELINK_SECRET_KEYS)',
  );
}

/**
 * The ciphertext re-encrypted under the newest key, or null when it already is (so a re-encryption run
 * can be repeated, or resumed, and only rewrites what still needs it).
 */
export function resealToken(blob: Uint8Array, ring: TokenKeyring): Buffer | null {
  const opened = openToken(blob, ring);
  const newest = ring.keys[0]!;
  const current = opened.key === newest && opened.keyed === (newest.id !== null);
  return current ? null : sealToken(opened.token, ring);
}
