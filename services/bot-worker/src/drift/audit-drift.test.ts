import { AuditLogEvent, type APIAuditLogEntry } from 'discord-api-types/v10';
import { driftFromEntries, newestEntryId } from './audit-drift';

const BOT = '1000000000000000001';
const MOD = '200000000000000009';
const LINKED = '710000000000000003';
const OTHER = '710000000000000004';
const links = new Map([[LINKED, '42']]);
let nextId = 1_000n;
const entry = (
  actor: string,
  target: string,
  key: '$add' | '$remove',
  roles: string[],
  actionType: AuditLogEvent = AuditLogEvent.MemberRoleUpdate,
): APIAuditLogEntry => ({
  id: String(nextId++),
  action_type: actionType,
  user_id: actor,
  target_id: target,
  changes: [{ key, new_value: roles.map((id) => ({ id, name: 'r' })) }],
});

describe('driftFromEntries', () => {
  it("takes each member's newest change of a linked role, skipping the bot's own, whatever order the page has", () => {
    const entries = [
      entry(MOD, '1', '$remove', [LINKED]), // hand removal …
      entry(BOT, '1', '$add', [LINKED]), // … already put back by the bot: superseded
      entry(BOT, '2', '$remove', [LINKED]),
      entry(MOD, '2', '$add', [LINKED]), // hand add after the bot's removal: drift
      entry(MOD, '3', '$add', [OTHER, LINKED]), // several roles in one entry
      entry(MOD, '4', '$add', [OTHER]), // not a linked role
      entry(MOD, '5', '$add', [LINKED]),
      entry(MOD, '5', '$remove', [LINKED]), // added then removed by hand: removed
      entry(MOD, '6', '$remove', [LINKED], AuditLogEvent.MemberUpdate), // another action type
    ];
    const drift = driftFromEntries([...entries].reverse(), BOT, links);
    expect([...drift.keys()]).toEqual(['42']);
    expect({ added: [...drift.get('42')!.added].sort(), removed: drift.get('42')!.removed }).toEqual({
      added: ['2', '3'],
      removed: ['5'],
    });
  });

  it('takes every role of an entry that groups several roles and combines $add with $remove (one edit of a whole list)', () => {
    const SECOND = '710000000000000005';
    const twoLinks = new Map([
      [LINKED, '42'],
      [SECOND, '43'],
    ]);
    const mixed = (actor: string, target: string, add: string[], remove: string[]): APIAuditLogEntry => ({
      id: String(nextId++),
      action_type: AuditLogEvent.MemberRoleUpdate,
      user_id: actor,
      target_id: target,
      changes: [
        { key: '$add', new_value: add.map((id) => ({ id, name: 'r' })) },
        { key: '$remove', new_value: remove.map((id) => ({ id, name: 'r' })) },
      ],
    });
    const page = [
      mixed(MOD, '1', [LINKED, OTHER], [SECOND]), // one hand edit: gave LINKED (and an unlinked role), took SECOND
      mixed(MOD, '2', [SECOND], [LINKED]),
      mixed(BOT, '2', [LINKED], []), // the bot put LINKED back: only SECOND stays drift for member 2
    ];
    const drift = driftFromEntries(page, BOT, twoLinks);
    expect(Object.fromEntries(drift)).toEqual({
      '42': { added: ['1'], removed: [] },
      '43': { added: ['2'], removed: ['1'] },
    });
  });

  it('finds nothing in a page of the bot alone, and names the newest id of a page', () => {
    const page = [entry(BOT, '7', '$add', [LINKED]), entry(BOT, '8', '$remove', [LINKED])];
    expect(driftFromEntries(page, BOT, links).size).toBe(0);
    expect(newestEntryId(page)).toBe(page[1]!.id);
    expect(newestEntryId([])).toBeNull();
  });
});
