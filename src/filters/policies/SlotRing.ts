// Internal storage of the policies that hold a FIFO per slot: fkie ApproximateTime and Fifo, ros
// ApproximateEpsilonTime (not re-exported).
import { DOUBLE_SEED, packedDoubles, packedSlots } from "./packedArrays";
import type { Duration, Stamp } from "../../time";

/**
 * One slot's messages, oldest first, as a ring buffer of stamps (packed doubles) and items whose
 * capacity is a power of two (internal). For fkie ApproximateTime it is the slot's optional head
 * plus its queue: fkie's head is empty only when its queue is, so the pair is exactly one deque
 * with the head at the front.
 *
 * Positions released on the hot path (emitted or dropped messages) are not cleared: the ring
 * overwrites them as it cycles, so it keeps at most `capacity − len` references to released
 * messages, each for at most `capacity` further messages on the slot. (Clearing cost about 2 ns
 * per message on W3.) `clear()` releases everything.
 *
 * The fields are public because the policies' hot loops read and advance them directly.
 */
export class SlotRing<T> {
  public st: number[];
  public it: (T | undefined)[];
  public mask = 0;
  /** Position of the front (the head). */
  public start = 0;
  public len = 0;
  /** fkie ApproximateTime: the known minimum distance between the slot's messages (ns). */
  public minDist: Duration = 0;
  /**
   * fkie ApproximateTime: the pivot generation in which the slot's can_still_improve answered
   * false from its loop (−1: none; see that policy's `#generation`).
   */
  public settledGen = -1;
  /** fkie ApproximateTime (ROS 2 rule): the newest stamp received on the slot. */
  public latest = DOUBLE_SEED;

  public constructor(capacity: number) {
    this.st = packedDoubles(capacity);
    this.it = packedSlots<T>(capacity);
    this.mask = capacity - 1;
  }

  /** Appends at the back, doubling the capacity when full. */
  public push(stamp: Stamp, item: T): void {
    if (this.len > this.mask) {
      this.#grow();
    }
    const p = (this.start + this.len) & this.mask;
    this.st[p] = stamp;
    this.it[p] = item;
    this.len++;
  }

  /** The stamp `k` places behind the head. */
  public stampAt(k: number): Stamp {
    return this.st[(this.start + k) & this.mask]!;
  }

  /** The item `k` places behind the head. */
  public itemAt(k: number): T {
    return this.it[(this.start + k) & this.mask] as T;
  }

  public clear(): void {
    this.it.fill(undefined);
    this.start = 0;
    this.len = 0;
  }

  #grow(): void {
    const cap = (this.mask + 1) * 2;
    const st = packedDoubles(cap);
    const it = packedSlots<T>(cap);
    for (let k = 0; k < this.len; k++) {
      st[k] = this.stampAt(k);
      it[k] = this.itemAt(k);
    }
    this.st = st;
    this.it = it;
    this.mask = cap - 1;
    this.start = 0;
  }
}
