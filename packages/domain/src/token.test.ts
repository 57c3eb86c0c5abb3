import { randomBytes } from 'node:crypto';
import { decryptToken, encryptToken, generateToken, hashToken, isWellFormedToken } from './token';

describe('API tokens', () => {
  it('are rl_-prefixed, well formed and distinct', () => {
    const a = generateToken();
    const b = generateToken();
    expect(a).toMatch(/^rl_[0-9A-Za-z]{47}$/);
    expect(isWellFormedToken(a)).toBe(true);
    expect(a).not.toBe(b);
  });

  it('refuses a token whose checksum does not match', () => {
    const t = generateToken();
    const last = t.at(-1) === 'a' ? 'b' : 'a';
    expect(isWellFormedToken(t.slice(0, -1) + last)).toBe(false);
    expect(isWellFormedToken('rl_short')).toBe(false);
  });

  it('round-trips through AES-256-GCM and fails under another key', () => {
    const key = randomBytes(32);
    const t = generateToken();
    const blob = encryptToken(t, key);
    expect(blob.includes(Buffer.from(t))).toBe(false);
    expect(decryptToken(blob, key)).toBe(t);
    expect(() => decryptToken(blob, randomBytes(32))).toThrow();
  });

  it('hashes to a 32-byte SHA-256 digest', () => {
    expect(hashToken('rl_x')).toHaveLength(32);
  });
});
