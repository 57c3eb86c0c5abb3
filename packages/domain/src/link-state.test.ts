import { deriveLinkStatus, type LinkStateFacts } from './link-state';
import { LINK_BLOCK_MESSAGES } from './platform-refusals';

const base: LinkStateFacts = {
  enabled: true,
  plan: 'free',
  paidSlots: 0,
  rank: 0,
  memberMode: 'keep',
  firstListAt: null,
  userCount: 25,
  appliedCount: 25,
  pendingCount: 0,
  syncBehind: false,
  ratePerSec: 10,
  botNotInGuild: false,
  block: null,
  notInServer: 0,
  deleted: 0,
  hold: null,
  membersIntentMissing: false,
};
const facts = (over: Partial<LinkStateFacts>): LinkStateFacts => ({ ...base, ...over });

describe('deriveLinkStatus', () => {
  it('is up to date with a full bar and no ETA when nothing is left to change', () => {
    const s = deriveLinkStatus(base);
    expect(s).toMatchObject({ state: 'up_to_date', reason: null, message: null });
    expect(s.counts).toEqual({
      listed: 25,
      synced: 25,
      to_add: 0,
      to_remove: 0,
      held: 0,
      not_in_server: 0,
      deleted: 0,
      over_limit: 0,
    });
    expect(s.progress).toEqual({ percent: 100, moving: false, eta_seconds: null });
  });

  it('is syncing with a moving bar and an ETA from the rate', () => {
    const s = deriveLinkStatus(facts({ appliedCount: 5, pendingCount: 20, ratePerSec: 4 }));
    expect(s.state).toBe('syncing');
    expect(s.counts).toMatchObject({ synced: 5, to_add: 20, to_remove: 0 });
    expect(s.progress).toEqual({ percent: 20, moving: true, eta_seconds: 5 });
  });

  it.each(['above_bot', 'mfa_required', 'no_manage_roles', 'managed'] as const)(
    'a link blocked by %s says so with the fix, shows no ETA and no moving bar',
    (reason) => {
      const s = deriveLinkStatus(facts({ appliedCount: 22, pendingCount: 3, block: reason }));
      expect(s.state).toBe('blocked');
      expect(s.reason).toBe(reason);
      expect(s.message).toBe(`Blocked: ${LINK_BLOCK_MESSAGES[reason]}`);
      expect(s.progress.moving).toBe(false);
      expect(s.progress.eta_seconds).toBeNull();
      // The changes it cannot make stay counted: nothing pretends they were made.
      expect(s.counts.to_add).toBe(3);
    },
  );

  it('names the bot out of the guild before a role problem', () => {
    const s = deriveLinkStatus(facts({ botNotInGuild: true, block: 'above_bot' }));
    expect(s).toMatchObject({ state: 'blocked', reason: 'bot_not_in_guild' });
    expect(s.message).toMatch(/^Blocked: The bot is not in this server/);
  });

  it('disabled outranks every other state, then paused by the slots', () => {
    expect(deriveLinkStatus(facts({ enabled: false, botNotInGuild: true, rank: 5 })).state).toBe('disabled');
    const paused = deriveLinkStatus(facts({ rank: 2, block: 'above_bot' }));
    expect(paused).toMatchObject({ state: 'paused', reason: 'slot_allowance' });
    expect(paused.message).toContain('this link is number 3; 2 allowed');
  });

  it('counts a held shrink under held, and a replaced hold not at all', () => {
    const hold = { kind: 'shrink' as const, removals: 2_980, confirmed: false, replaced: false };
    const held = deriveLinkStatus(facts({ userCount: 3_000, appliedCount: 3_000, hold }));
    expect(held).toMatchObject({ state: 'held', reason: 'shrink' });
    expect(held.counts).toMatchObject({ held: 2_980, to_remove: 0 });
    const replaced = deriveLinkStatus(
      facts({ hold: { ...hold, replaced: true }, appliedCount: 118, pendingCount: 93 }),
    );
    expect(replaced.state).toBe('syncing');
    expect(replaced.counts).toMatchObject({ held: 0, to_remove: 93 });
  });

  it("counts an admin-source hold's removals under held and not again under to_remove", () => {
    const s = deriveLinkStatus(
      facts({
        userCount: 9,
        appliedCount: 10,
        pendingCount: 1,
        hold: { kind: 'admin_source', removals: 1, confirmed: false, replaced: false },
      }),
    );
    expect(s).toMatchObject({ state: 'held', reason: 'admin_source' });
    expect(s.counts).toMatchObject({ held: 1, to_remove: 0, synced: 10 });
  });

  it('waits for the first list of a hand-over link', () => {
    expect(deriveLinkStatus(facts({ memberMode: 'handover', userCount: 0, appliedCount: 0 })).state).toBe(
      'awaiting_first_list',
    );
    expect(deriveLinkStatus(facts({ memberMode: 'handover', firstListAt: new Date(0) })).state).toBe('up_to_date');
  });

  it('leaves unreachable users out of the changes, and counts those over the limit apart', () => {
    const s = deriveLinkStatus(
      facts({ userCount: 30, appliedCount: 20, pendingCount: 5, notInServer: 3, deleted: 2, plan: 'free' }),
    );
    expect(s.state).toBe('up_to_date');
    expect(s.counts).toMatchObject({ listed: 30, to_add: 0, not_in_server: 3, deleted: 2, over_limit: 0 });
    const over = deriveLinkStatus(facts({ userCount: 150, appliedCount: 100 }));
    expect(over.counts.over_limit).toBe(50);
  });

  it('warns of the Server Members intent without calling the link blocked', () => {
    const s = deriveLinkStatus(facts({ membersIntentMissing: true, notInServer: 2, userCount: 27 }));
    expect(s.state).toBe('up_to_date');
    expect(s.warnings.map((w) => w.reason)).toEqual(['members_intent_missing']);
    expect(s.counts.not_in_server).toBeNull();
  });
});
