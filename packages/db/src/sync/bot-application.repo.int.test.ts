import { createTestDb, type TestDb } from '../../../../test/support/db';
import {
  clearMembersListingBlocked,
  markMembersListingBlocked,
  membersListingBlockedSince,
} from './bot-application.repo';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});
afterAll(() => db.drop());

describe('bot application (bot_application)', () => {
  it('marks the application unable to list members once, keeps the first time, and clears it when a listing succeeds', async () => {
    expect(await membersListingBlockedSince(db.pool, 'app-a')).toBeNull();
    expect(await clearMembersListingBlocked(db.pool, 'app-a')).toBe(false);
    expect(await markMembersListingBlocked(db.pool, 'app-a')).toBe(true);
    const since = await membersListingBlockedSince(db.pool, 'app-a');
    expect(since).toBeInstanceOf(Date);
    expect(await markMembersListingBlocked(db.pool, 'app-a')).toBe(false);
    expect(await membersListingBlockedSince(db.pool, 'app-a')).toEqual(since);
    expect(await membersListingBlockedSince(db.pool, 'app-b')).toBeNull(); // per application
    expect(await clearMembersListingBlocked(db.pool, 'app-a')).toBe(true);
    expect(await membersListingBlockedSince(db.pool, 'app-a')).toBeNull();
    expect(await markMembersListingBlocked(db.pool, 'app-a')).toBe(true); // blocked again: told again
  });
});
