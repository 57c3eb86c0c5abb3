import { randomBytes } from 'node:crypto';
import { generateToken } from './token';
import { keyring, openToken, resealToken, sealToken } from './token-keyring';

const OLD = randomBytes(32);
const NEW = randomBytes(32);

describe('token keyring', () => {
  it('a key without ID writes the format without ID, which older releases read as iv | tag | ciphertext', () => {
    const t = generateToken();
    const blob = sealToken(t, keyring([{ id: null, key: OLD }]));
    expect(blob).toHaveLength(12 + 16 + Buffer.byteLength(t));
    expect(openToken(blob, keyring([{ id: null, key: OLD }]))).toMatchObject({ token: t, keyed: false });
  });

  it('the newest key encrypts with its ID in front, and every listed key decrypts', () => {
    const t = generateToken();
    const before = sealToken(t, keyring([{ id: 'k1', key: OLD }]));
    expect(before.subarray(5, 7).toString('ascii')).toBe('k1');
    const ring = keyring([
      { id: 'k2', key: NEW },
      { id: 'k1', key: OLD },
    ]);
    expect(openToken(before, ring)).toMatchObject({ token: t, key: { id: 'k1' }, keyed: true });
    const after = sealToken(t, ring);
    expect(openToken(after, ring)).toMatchObject({ token: t, key: { id: 'k2' } });
  });

  it('a ciphertext without ID is tried under every key', () => {
    const t = generateToken();
    const legacy = sealToken(t, keyring([{ id: null, key: OLD }]));
    const ring = keyring([
      { id: 'k2', key: NEW },
      { id: null, key: OLD },
    ]);
    expect(openToken(legacy, ring).token).toBe(t);
  });

  it('names the missing key ID when no configured key opens a ciphertext', () => {
    const blob = sealToken(generateToken(), keyring([{ id: 'gone', key: OLD }]));
    expect(() => openToken(blob, keyring([{ id: 'k2', key: NEW }]))).toThrow(/key ID "gone", which is not configured/);
    const legacy = sealToken(generateToken(), keyring([{ id: null, key: OLD }]));
    expect(() => openToken(legacy, keyring([{ id: 'k2', key: NEW }]))).toThrow(
      /does not decrypt under any configured key/,
    );
  });

  it('refuses a key ID swapped in a stored ciphertext (the header is authenticated)', () => {
    const ring = keyring([
      { id: 'k2', key: NEW },
      { id: 'k1', key: NEW },
    ]);
    const blob = sealToken(generateToken(), ring);
    const swapped = Buffer.from(blob);
    swapped.write('k1', 5, 'ascii');
    expect(() => openToken(swapped, ring)).toThrow();
  });

  it('reseals only what is not under the newest key', () => {
    const t = generateToken();
    const ring = keyring([
      { id: 'k2', key: NEW },
      { id: null, key: OLD },
    ]);
    const legacy = sealToken(t, keyring([{ id: null, key: OLD }]));
    const moved = resealToken(legacy, ring)!;
    expect(openToken(moved, keyring([{ id: 'k2', key: NEW }])).token).toBe(t);
    expect(resealToken(moved, ring)).toBeNull();
    // Under a ring whose newest key has no ID, the format without ID is current and one with an ID is not.
    const plain = keyring([
      { id: null, key: OLD },
      { id: 'k2', key: NEW },
    ]);
    expect(resealToken(legacy, plain)).toBeNull();
    expect(openToken(resealToken(moved, plain)!, plain)).toMatchObject({ token: t, keyed: false });
  });

  it('refuses an empty ring, a short key and a bad ID', () => {
    expect(() => keyring([])).toThrow();
    expect(() => keyring([{ id: 'k', key: randomBytes(16) }])).toThrow();
    expect(() => keyring([{ id: 'a:b', key: NEW }])).toThrow();
  });
});
