import { randomBytes } from 'node:crypto';
import { decryptToken, encryptToken, generateToken, keyring, type TokenKeyring } from '@rolelink/domain';
import { createTestDb, type TestDb } from '../../../test/support/db';
import { seedLink, TEST_SECRET_KEY } from '../../../test/support/fixtures';
import { run } from '../src/main';
import { useCliEnv } from './cli-env';

// Rotating ROLELINK_SECRET_KEY: tokens stored before key IDs existed (ROLELINK_SECRET_KEY alone) and
// under a key with an ID are read after a new key is put first, then `rolelink secrets reencrypt` moves
// them all to the new key, after which the new key alone reads them.

const OLD = TEST_SECRET_KEY; // the deployment's ROLELINK_SECRET_KEY before rotation
const K1 = randomBytes(32); // a keyed key already in ROLELINK_SECRET_KEYS before this rotation
const K2 = randomBytes(32); // the new key
const hex = (b: Buffer) => b.toString('hex');

let db: TestDb;
let restoreEnv: (() => void) | null = null;

beforeAll(async () => {
  db = await createTestDb();
});
afterAll(async () => {
  await db.drop();
});
afterEach(() => {
  restoreEnv?.();
  restoreEnv = null;
});

async function cli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: Report }> {
  restoreEnv?.();
  restoreEnv = useCliEnv({ db, prefix: 'unused' }, env);
  if (!('ROLELINK_SECRET_KEY' in env)) delete process.env.ROLELINK_SECRET_KEY;
  const lines: string[] = [];
  const code = await run(
    [...args, '--json'],
    (s) => lines.push(s),
    (s) => lines.push(s),
  );
  return { code, out: JSON.parse(lines.join('\n')) as Report };
}

type Report = {
  newestKey: string;
  tables: { table: string; rows: number; reencrypted: number; alreadyCurrent: number; failed: number }[];
};

async function stored(): Promise<{ k: string; ct: Buffer }[]> {
  const links = await db.pool.query<{ k: string; ct: Buffer }>(
    'SELECT id::text AS k, token_ciphertext AS ct FROM role_link ORDER BY id',
  );
  const events = await db.pool.query<{ k: string; ct: Buffer }>(
    "SELECT 'event-' || link_id::text AS k, token_ciphertext AS ct FROM plugin_event_link ORDER BY link_id",
  );
  return [...links.rows, ...events.rows];
}

describe('rolelink secrets reencrypt', () => {
  it('reads tokens stored under the old keys after rotation, moves them to the new key, and is safe to re-run', async () => {
    // Before rotation: links stored under ROLELINK_SECRET_KEY alone (no key ID), and one under k1.
    const legacy = await seedLink(db);
    const legacy2 = await seedLink(db);
    const keyedToken = generateToken();
    const k1Ring: TokenKeyring = keyring([{ id: 'k1', key: K1 }]);
    await db.pool.query(
      `INSERT INTO plugin_event_link (link_id, guild_id, role_id, plugin_url, token_ciphertext, kinds)
       VALUES (9001, 1, 2, 'https://plugin.example.com', $1, ARRAY['link.deleted'])`,
      [encryptToken(keyedToken, k1Ring)],
    );
    const expected = new Map<string, string>([
      [legacy.linkId, legacy.token],
      [legacy2.linkId, legacy2.token],
      ['event-9001', keyedToken],
    ]);

    // After rotation: the new key first, the old ones still listed; everything stored reads.
    const rotated = keyring([
      { id: 'k2', key: K2 },
      { id: 'k1', key: K1 },
      { id: null, key: OLD },
    ]);
    for (const row of await stored()) expect(decryptToken(row.ct, rotated)).toBe(expected.get(row.k));

    // Small batches, so the run pages through more than one.
    const env = { ROLELINK_SECRET_KEYS: `k2:${K2.toString('base64')},k1:${hex(K1)}`, ROLELINK_SECRET_KEY: hex(OLD) };
    const first = await cli(env, 'secrets', 'reencrypt', '--batch-size', '1');
    expect(first.code).toBe(0);
    expect(first.out.newestKey).toBe('k2');
    expect(first.out.tables).toEqual([
      expect.objectContaining({ table: 'role_link', rows: 2, reencrypted: 2, alreadyCurrent: 0, failed: 0 }),
      expect.objectContaining({ table: 'plugin_event_link', rows: 1, reencrypted: 1, alreadyCurrent: 0, failed: 0 }),
    ]);

    // The new key alone reads every token; the old keys read none.
    const newOnly = keyring([{ id: 'k2', key: K2 }]);
    for (const row of await stored()) {
      expect(decryptToken(row.ct, newOnly)).toBe(expected.get(row.k));
      expect(() =>
        decryptToken(
          row.ct,
          keyring([
            { id: 'k1', key: K1 },
            { id: null, key: OLD },
          ]),
        ),
      ).toThrow();
    }

    // A second run finds nothing to do and changes nothing.
    const before = await stored();
    const again = await cli(env, 'secrets', 'reencrypt');
    expect(again.code).toBe(0);
    expect(again.out.tables.map((t) => [t.reencrypted, t.alreadyCurrent])).toEqual([
      [0, 2],
      [0, 1],
    ]);
    expect((await stored()).map((r) => r.ct)).toEqual(before.map((r) => r.ct));

    // The old keys can now go: the services (and this command) run on the new key alone.
    const after = await cli({ ROLELINK_SECRET_KEYS: `k2:${hex(K2)}` }, 'secrets', 'reencrypt');
    expect(after.code).toBe(0);
    expect(after.out.tables.map((t) => t.failed)).toEqual([0, 0]);
  });

  it('leaves a token no configured key opens as it is, counts it and exits 1', async () => {
    await db.pool.query('TRUNCATE role_link, plugin_event_link CASCADE');
    const lost = await seedLink(db);
    const { rows } = await db.pool.query<{ ct: Buffer }>('SELECT token_ciphertext AS ct FROM role_link WHERE id = $1', [
      lost.linkId,
    ]);
    const res = await cli({ ROLELINK_SECRET_KEYS: `k2:${hex(K2)}` }, 'secrets', 'reencrypt');
    expect(res.code).toBe(1);
    expect(res.out.tables[0]).toEqual(expect.objectContaining({ rows: 1, reencrypted: 0, failed: 1 }));
    const now = await db.pool.query<{ ct: Buffer }>('SELECT token_ciphertext AS ct FROM role_link WHERE id = $1', [
      lost.linkId,
    ]);
    expect(now.rows[0]!.ct).toEqual(rows[0]!.ct);
  });
});
