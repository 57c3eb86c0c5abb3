/**
 * Interned role combinations. A guild of a million members holds only a handful of distinct role sets,
 * so each member stores a 4-byte index into this table instead of its own Set (index 0 = no roles).
 * Sets are sorted arrays of role indexes; they are never removed, which is fine: the table grows with
 * the number of distinct combinations ever seen, not with the number of members.
 */
export class RoleSetTable {
  private readonly sets: (readonly number[])[] = [[]];
  private readonly byKey = new Map<string, number>([['', 0]]);

  intern(roles: Iterable<number>): number {
    const sorted = [...new Set(roles)].sort((a, b) => a - b);
    const key = sorted.join(',');
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    this.sets.push(sorted);
    this.byKey.set(key, this.sets.length - 1);
    return this.sets.length - 1;
  }

  get(index: number): readonly number[] {
    const set = this.sets[index];
    if (!set) throw new Error(`unknown role set ${index}`);
    return set;
  }

  has(index: number, role: number): boolean {
    return this.get(index).includes(role);
  }

  with(index: number, role: number): number {
    return this.has(index, role) ? index : this.intern([...this.get(index), role]);
  }

  without(index: number, role: number): number {
    return this.has(index, role) ? this.intern(this.get(index).filter((r) => r !== role)) : index;
  }

  /** For each interned set, whether it holds `role`: lets a full scan test membership with one array read. */
  containing(role: number): Uint8Array {
    const out = new Uint8Array(this.sets.length);
    this.sets.forEach((set, i) => {
      if (set.includes(role)) out[i] = 1;
    });
    return out;
  }

  get size(): number {
    return this.sets.length;
  }
}
