/**
 * Counts events over a sliding window (the platform's invalid-request window is 10 minutes) in
 * one-second slots: constant memory however many events arrive, accurate to a second at the edge.
 */
export class SlidingCounter {
  private readonly slots: Float64Array;
  private readonly slotTimes: Float64Array;
  private total = 0;

  constructor(
    windowMs: number,
    private readonly slotMs = 1000,
  ) {
    const n = Math.max(1, Math.ceil(windowMs / slotMs));
    this.slots = new Float64Array(n);
    this.slotTimes = new Float64Array(n).fill(-1);
  }

  add(now: number, n = 1): number {
    const slot = Math.floor(now / this.slotMs);
    const i = slot % this.slots.length;
    if (this.slotTimes[i] !== slot) {
      this.total -= this.slots[i]!;
      this.slots[i] = 0;
      this.slotTimes[i] = slot;
    }
    this.slots[i]! += n;
    this.total += n;
    return this.count(now);
  }

  count(now: number): number {
    const oldest = Math.floor(now / this.slotMs) - this.slots.length + 1;
    for (let i = 0; i < this.slots.length; i++) {
      if (this.slotTimes[i]! >= 0 && this.slotTimes[i]! < oldest) {
        this.total -= this.slots[i]!;
        this.slots[i] = 0;
        this.slotTimes[i] = -1;
      }
    }
    return this.total;
  }

  clear(): void {
    this.slots.fill(0);
    this.slotTimes.fill(-1);
    this.total = 0;
  }
}
