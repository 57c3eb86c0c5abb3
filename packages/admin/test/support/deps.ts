import type { TestDb } from '../../../../test/support/db';
import { TEST_SECRET_KEY } from '../../../../test/support/fixtures';
import type { AdminDeps } from '../../src/deps';

/** The admin commands' dependencies over a test database: the broker and the queue answer at once (not under test here). */
export function testAdminDeps(db: TestDb, plugin: Partial<AdminDeps['plugin']> = {}): AdminDeps {
  return {
    db,
    secretKey: () => TEST_SECRET_KEY,
    allowPrivatePluginHosts: [],
    plugin: { register: () => Promise.resolve(), deleteConfig: () => Promise.resolve(), ...plugin },
    requestSync: () => Promise.resolve(),
  };
}
