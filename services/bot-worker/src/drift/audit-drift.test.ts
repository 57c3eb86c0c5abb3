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

  it('finds nothing in a page of the bot alone, and names the newest id of a page', () => {
    const page = [entry(BOT, '7', '$add', [LINKED]), entry(BOT, '8', '$remove', [LINKED])];
    expect(driftFromEntries(page, BOT, links).size).toBe(0);
    expect(newestEntryId(page)).toBe(page[1]!.id);
    expect(newestEntryId([])).toBeNull();
  });
});
