import { RoleSetTable } from './role-set-table';

export type MemberEntry = { id: bigint; roles: readonly number[] };
export type GeneratedRange = { start: bigint; count: number; roles: readonly number[] };

/**
 * A guild's members, compact enough for millions: user ids in one sorted BigUint64Array, and beside
 * each id a 4-byte index of its interned role set. Look-ups and `after` pagination are binary searches
 * (O(log n + limit)); per-role member counts are kept up to date on every change, so member-counts is
 * O(roles). Inserting or removing a member shifts the arrays (O(n)), which only the control API does.
 */
export class MemberStore {
  private readonly table = new RoleSetTable();
  private readonly counts: number[];
  private ids: BigUint64Array;
  private sets: Uint32Array;
  private length = 0;

  private constructor(roleCount: number, capacity: number) {
    this.counts = new Array<number>(roleCount).fill(0);
    this.ids = new BigUint64Array(Math.max(16, capacity));
    this.sets = new Uint32Array(this.ids.length);
  }

  /** Merges a generated id range with explicit members (explicit ones win on the same id) in one pass. */
  static build(roleCount: number, explicit: Map<bigint, readonly number[]>, generated?: GeneratedRange): MemberStore {
    const genCount = generated?.count ?? 0;
    const store = new MemberStore(roleCount, genCount + explicit.size);
    const explicitIds = BigUint64Array.from(explicit.keys()).sort();
    const genSet = generated ? store.table.intern(generated.roles) : 0;
    const genEnd = generated ? generated.start + BigInt(genCount) : 0n;
    let next = generated?.start ?? 0n;
    let j = 0;
    let n = 0;
    while (next < genEnd || j < explicitIds.length) {
      const e = j < explicitIds.length ? explicitIds[j]! : undefined;
      if (e !== undefined && (next >= genEnd || e <= next)) {
        store.ids[n] = e;
        store.sets[n] = store.table.intern(explicit.get(e) ?? []);
        if (e === next) next += 1n;
        j += 1;
      } else {
        store.ids[n] = next;
        store.sets[n] = genSet;
        next += 1n;
      }
      n += 1;
    }
    store.length = n;
    store.recount();
    return store;
  }

  get size(): number {
    return this.length;
  }

  /** Index of the first member whose id is greater than `after` (the platform's `after` semantics). */
  upperBound(after: bigint): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid]! <= after) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private indexOf(id: bigint): number {
    const i = this.upperBound(id) - 1;
    return i >= 0 && this.ids[i] === id ? i : -1;
  }

  has(id: bigint): boolean {
    return this.indexOf(id) >= 0;
  }

  roles(id: bigint): readonly number[] | undefined {
    const i = this.indexOf(id);
    return i < 0 ? undefined : this.table.get(this.sets[i]!);
  }

  /** Members with id > after, ascending, at most `limit`. */
  page(after: bigint, limit: number): MemberEntry[] {
    const from = this.upperBound(after);
    const to = Math.min(this.length, from + limit);
    const out: MemberEntry[] = [];
    for (let i = from; i < to; i++) out.push({ id: this.ids[i]!, roles: this.table.get(this.sets[i]!) });
    return out;
  }

  /** Ids of the members holding `role`, ascending. A full scan: one array read per member. */
  holders(role: number): bigint[] {
    const hit = this.table.containing(role);
    const out: bigint[] = [];
    for (let i = 0; i < this.length; i++) if (hit[this.sets[i]!] === 1) out.push(this.ids[i]!);
    return out;
  }

  count(role: number): number {
    return this.counts[role] ?? 0;
  }

  /** `undefined` when the member is absent; otherwise whether the role set changed. */
  addRole(id: bigint, role: number): boolean | undefined {
    const i = this.indexOf(id);
    return i < 0 ? undefined : this.move(i, this.table.with(this.sets[i]!, role));
  }

  removeRole(id: bigint, role: number): boolean | undefined {
    const i = this.indexOf(id);
    return i < 0 ? undefined : this.move(i, this.table.without(this.sets[i]!, role));
  }

  setRoles(id: bigint, roles: readonly number[]): boolean | undefined {
    const i = this.indexOf(id);
    return i < 0 ? undefined : this.move(i, this.table.intern(roles));
  }

  /** False when the member already exists. */
  insert(id: bigint, roles: readonly number[]): boolean {
    const at = this.upperBound(id);
    if (at > 0 && this.ids[at - 1] === id) return false;
    if (this.length === this.ids.length) this.grow();
    this.ids.copyWithin(at + 1, at, this.length);
    this.sets.copyWithin(at + 1, at, this.length);
    this.ids[at] = id;
    this.sets[at] = 0;
    this.length += 1;
    this.move(at, this.table.intern(roles));
    return true;
  }

  /** False when the member was absent. */
  remove(id: bigint): boolean {
    const i = this.indexOf(id);
    if (i < 0) return false;
    this.move(i, 0);
    this.ids.copyWithin(i, i + 1, this.length);
    this.sets.copyWithin(i, i + 1, this.length);
    this.length -= 1;
    return true;
  }

  private move(i: number, to: number): boolean {
    const from = this.sets[i]!;
    if (from === to) return false;
    for (const r of this.table.get(from)) this.counts[r] = (this.counts[r] ?? 0) - 1;
    for (const r of this.table.get(to)) this.counts[r] = (this.counts[r] ?? 0) + 1;
    this.sets[i] = to;
    return true;
  }

  private grow(): void {
    const ids = new BigUint64Array(this.ids.length * 2);
    const sets = new Uint32Array(ids.length);
    ids.set(this.ids);
    sets.set(this.sets);
    this.ids = ids;
    this.sets = sets;
  }

  private recount(): void {
    const perSet = new Array<number>(this.table.size).fill(0);
    for (let i = 0; i < this.length; i++) perSet[this.sets[i]!]! += 1;
    this.counts.fill(0);
    perSet.forEach((n, s) => {
      for (const r of this.table.get(s)) this.counts[r] = (this.counts[r] ?? 0) + n;
    });
  }
}
