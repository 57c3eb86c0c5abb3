import { MemberStore } from './member-store';

const ids = (entries: { id: bigint }[]) => entries.map((e) => e.id);

describe('MemberStore', () => {
  it('merges generated and explicit members into one ascending list where explicit roles win', () => {
    const explicit = new Map<bigint, readonly number[]>([
      [5n, [1]],
      [12n, [2]],
      [1n, []],
    ]);
    const store = MemberStore.build(3, explicit, { start: 10n, count: 4, roles: [0] });
    expect(ids(store.page(0n, 100))).toEqual([1n, 5n, 10n, 11n, 12n, 13n]);
    expect(store.roles(12n)).toEqual([2]);
    expect(store.roles(11n)).toEqual([0]);
    expect([store.count(0), store.count(1), store.count(2)]).toEqual([3, 1, 1]);
  });

  it('pages strictly after the given id and stops at the limit', () => {
    const store = MemberStore.build(1, new Map(), { start: 100n, count: 50, roles: [] });
    expect(ids(store.page(99n, 3))).toEqual([100n, 101n, 102n]);
    expect(ids(store.page(102n, 2))).toEqual([103n, 104n]);
    expect(ids(store.page(120n, 2))).toEqual([121n, 122n]);
    expect(store.page(149n, 10)).toEqual([]);
    expect(ids(store.page(0n, 1))).toEqual([100n]);
  });

  it('adds and removes roles idempotently and keeps the per-role counts exact', () => {
    const store = MemberStore.build(2, new Map([[7n, []]]), { start: 10n, count: 3, roles: [] });
    expect(store.addRole(7n, 1)).toBe(true);
    expect(store.addRole(7n, 1)).toBe(false);
    expect(store.addRole(10n, 1)).toBe(true);
    expect(store.count(1)).toBe(2);
    expect(store.removeRole(7n, 1)).toBe(true);
    expect(store.removeRole(7n, 1)).toBe(false);
    expect(store.count(1)).toBe(1);
    expect(store.addRole(8n, 1)).toBeUndefined();
    expect(store.holders(1)).toEqual([10n]);
  });

  it('inserts and removes members in order, growing past its initial capacity', () => {
    const store = MemberStore.build(1, new Map(), undefined);
    for (const id of [
      50n,
      10n,
      30n,
      20n,
      40n,
      60n,
      70n,
      80n,
      90n,
      100n,
      110n,
      120n,
      130n,
      140n,
      150n,
      160n,
      170n,
      5n,
    ]) {
      expect(store.insert(id, id % 20n === 0n ? [0] : [])).toBe(true);
    }
    expect(store.insert(30n, [])).toBe(false);
    expect(store.size).toBe(18);
    expect(ids(store.page(0n, 5))).toEqual([5n, 10n, 20n, 30n, 40n]);
    expect(store.count(0)).toBe(8);
    expect(store.remove(20n)).toBe(true);
    expect(store.remove(20n)).toBe(false);
    expect(store.count(0)).toBe(7);
    expect(ids(store.page(10n, 2))).toEqual([30n, 40n]);
  });

  it('replaces a member role set as a hand edit does', () => {
    const store = MemberStore.build(3, new Map([[1n, [0, 1]]]));
    expect(store.setRoles(1n, [2, 2])).toBe(true);
    expect(store.roles(1n)).toEqual([2]);
    expect([store.count(0), store.count(1), store.count(2)]).toEqual([0, 0, 1]);
    expect(store.setRoles(2n, [])).toBeUndefined();
  });
});
