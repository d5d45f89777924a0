import type { Duration, Stamp } from "../../../time";
import type { DropReason } from "../../DropReason";
import type { CombinerPolicy, PolicyHost } from "../CombinerPolicy";
import { checkDuration, checkQueueSize, checkSlotCount, unboundHost } from "./checks";

/** Options of {@link ApproximateTime}; every field is optional and JSON-friendly. */
export interface ApproximateTimeOptions {
  /**
   * Maximum number of messages queued per slot behind the slot's head, so a slot holds at most
   * `maxQueueSize + 1` messages; older ones are dropped as `queue-overflow`. 0 (the default) means
   * unlimited.
   */
  maxQueueSize?: number;
  /**
   * Maximum age in ns of any held message, measured against the stamp of each incoming message
   * (not the wall clock); older ones are dropped as `max-age`. Default 1 s; `null` = unlimited.
   */
  maxAge?: Duration | null;
  /**
   * Maximum timespan in ns (newest − oldest stamp) of an emitted set; a set that would exceed it
   * loses its pivot instead (`max-timespan`). Default `null` = unconstrained.
   */
  maxTimespan?: Duration | null;
  /**
   * Known lower bound in ns of the distance between consecutive messages, per slot (default 0).
   * A correct bound lets a set go out as soon as it is provably optimal (no one-period lag); an
   * incorrect one yields sub-optimal sets. Must have one entry per slot when given.
   */
  minDistance?: readonly Duration[];
  /**
   * The relative stamp that means "absolute time 0" (`TimeBase.zero`; default 0). fkie treats
   * stamp 0 as "unset" in three places, reproduced here against this value: the pivot scan starts
   * from it (so sets of all-zero stamps never form), the timespan of a set ignores it, and the
   * ROS 2 out-of-order check treats it as "no previous stamp".
   */
  zero?: Stamp;
  /**
   * Use fkie 1.x (ROS 1) out-of-order detection: a stamp older than the newest message still held
   * on its slot resets the policy. Default `false`: the ROS 2 (2.x/3.x) rule, where a stamp older
   * than the newest stamp ever received on the slot (even if already emitted) resets the policy.
   */
  ros1OutOfOrder?: boolean;
}

const UNSET = -1;
const INITIAL_CAPACITY = 16;

/**
 * fkie_message_filters' `combiner_policies::ApproximateTime` (reference
 * fkie-message-filters.md §2.1), reproduced step for step, quirks included.
 *
 * Guarantees (fkie's, for in-order arrival per slot and large enough queues): every message is
 * used at most once; per slot, messages are used in stamp order (sets as a whole may overlap);
 * sets are contiguous and pivot-optimal; the output depends only on the stamps, not on the
 * interleaving across slots. Several sets may be emitted by one `add`.
 *
 * Drops (each reported once through the host): queue limit → `queue-overflow`; age limit →
 * `max-age`; pivot rejected by the timespan limit → `max-timespan`; a head passed over for a closer
 * message → `not-selected`; a stamp going backwards resets the policy and drops everything held
 * as `out-of-order-reset` (the backwards message itself is kept); `reset(true)` → `reset`.
 * Drops of one slot are reported oldest first.
 *
 * Quirks kept for parity: heads expire with `<` but queued messages with `<=`; with all stamps
 * equal to `zero` no pivot is ever found; the timespan check skips stamps equal to `zero`; a head
 * earlier than the pivot waits for one more message on its slot unless `minDistance` proves it
 * optimal (fkie issue #2, a one-period lag).
 *
 * Setters follow fkie, side effects included: `setMaxAge` also sets `maxQueueSize` to 0 and
 * `setMaxQueueSize(n)` without a second argument sets `maxAge` to `null`. Options passed to the
 * constructor are applied together, without those side effects.
 *
 * Hot path: per-slot ring buffers of stamps (Float64Array) and items; no allocation per message
 * except the two arrays of each emitted set.
 *
 * ```ts
 * const policy = new ApproximateTime<Msg>(2, { maxQueueSize: 10, maxAge: null });
 * policy.bind({ emit: (items, stamps) => use(items), drop: (slot, stamp, item, reason) => log(reason) });
 * policy.add(0, stampA, msgA, stampA);
 * ```
 */
export class ApproximateTime<T> implements CombinerPolicy<T> {
  /** The config type of this policy. */
  public readonly type = "fkie/approximate-time";
  /** Number of input slots. */
  public readonly slots: number;
  /** Always false: the policy needs header stamps. */
  public readonly acceptsHeaderless = false;

  #host: PolicyHost<T> = unboundHost("fkie/approximate-time");
  #maxQueueSize: number;
  #maxAge: Duration | null;
  #maxTimespan: Duration | null;
  readonly #minDist: Float64Array;
  readonly #zero: Stamp;
  readonly #ros1: boolean;

  // Slot i's messages (head first, then its queue) live in ring i: positions
  // i*cap + ((start[i] + k) & mask) for k < len[i]. fkie keeps "head + queue"; since its head is
  // empty only when its queue is, the pair is exactly this one deque with the head at the front.
  #cap = INITIAL_CAPACITY;
  #mask = INITIAL_CAPACITY - 1;
  #st: Float64Array;
  #it: (T | undefined)[];
  readonly #start: Int32Array;
  readonly #len: Int32Array;
  /** ROS 2: the newest stamp received per slot (`zero` = none). */
  readonly #latest: Float64Array;
  #pivot = UNSET;
  #pivotTs: Stamp = 0;

  /**
   * @param slots number of inputs (a positive integer)
   * @param options see {@link ApproximateTimeOptions}; throws RangeError naming a bad option
   */
  public constructor(slots: number, options: ApproximateTimeOptions = {}) {
    checkSlotCount(slots, "fkie/approximate-time");
    this.slots = slots;
    this.#maxQueueSize = checkQueueSize(options.maxQueueSize ?? 0, "maxQueueSize");
    this.#maxAge = checkDuration(
      // null (unlimited) and undefined (the 1 s default) differ here.
      // eslint-disable-next-line @foxglove/strict-equality
      options.maxAge === undefined ? 1_000_000_000 : options.maxAge,
      "maxAge",
    );
    this.#maxTimespan = checkDuration(options.maxTimespan ?? null, "maxTimespan");
    this.#minDist = new Float64Array(slots);
    if (options.minDistance != undefined) {
      if (options.minDistance.length !== slots) {
        throw new RangeError(
          `fkie/approximate-time: minDistance has ${options.minDistance.length} entries but the policy has ${slots} slots (give one per slot)`,
        );
      }
      options.minDistance.forEach((d, i) => {
        this.#minDist[i] = checkDuration(d, `minDistance[${i}]`) ?? 0;
      });
    }
    this.#zero = options.zero ?? 0;
    if (typeof this.#zero !== "number" || Number.isNaN(this.#zero)) {
      throw new RangeError(`fkie/approximate-time: zero must be a number (TimeBase.zero)`);
    }
    this.#ros1 = options.ros1OutOfOrder ?? false;
    if (this.#maxQueueSize > 0) {
      this.#cap = nextPow2(this.#maxQueueSize + 2);
      this.#mask = this.#cap - 1;
    }
    this.#st = new Float64Array(slots * this.#cap);
    this.#it = new Array<T | undefined>(slots * this.#cap).fill(undefined);
    this.#start = new Int32Array(slots);
    this.#len = new Int32Array(slots);
    this.#latest = new Float64Array(slots).fill(this.#zero);
  }

  /** Max queue size per slot behind the head (0 = unlimited). */
  public get maxQueueSize(): number {
    return this.#maxQueueSize;
  }
  /** Max age in ns, or null (unlimited). */
  public get maxAge(): Duration | null {
    return this.#maxAge;
  }
  /** Max timespan in ns, or null (unconstrained). */
  public get maxTimespan(): Duration | null {
    return this.#maxTimespan;
  }
  /** The minimum distance of slot `slot` in ns. */
  public minDistance(slot: number): Duration {
    this.#checkSlot(slot);
    return this.#minDist[slot]!;
  }

  /** Sets the max age (ns, or null) and, as fkie's `set_max_age` does, `maxQueueSize = 0`. */
  public setMaxAge(maxAge: Duration | null): this {
    this.#maxAge = checkDuration(maxAge, "maxAge");
    this.#maxQueueSize = 0;
    return this;
  }

  /**
   * Sets the max queue size (0 = unlimited) and the max age, which fkie's `set_max_queue_size`
   * resets to `null` (unlimited) when not given.
   */
  public setMaxQueueSize(maxQueueSize: number, maxAge: Duration | null = null): this {
    this.#maxQueueSize = checkQueueSize(maxQueueSize, "maxQueueSize");
    this.#maxAge = checkDuration(maxAge, "maxAge");
    return this;
  }

  /** Sets the max timespan of an emitted set (ns, or null). */
  public setMaxTimespan(maxTimespan: Duration | null): this {
    this.#maxTimespan = checkDuration(maxTimespan, "maxTimespan");
    return this;
  }

  /** Sets the known minimum distance between consecutive messages of one slot (ns). */
  public setMinDistance(slot: number, minDistance: Duration): this {
    this.#checkSlot(slot);
    this.#minDist[slot] = checkDuration(minDistance, `minDistance[${slot}]`) ?? 0;
    return this;
  }

  /** Connects the policy to its host (emit/drop receiver). */
  public bind(host: PolicyHost<T>): void {
    this.#host = host;
  }

  /** Adds one message (reference §2.1 add): expiry, order check, insert, prune, matching loop. */
  public add(slot: number, stamp: Stamp, item: T, _arrival?: Stamp): void {
    if (slot >>> 0 !== slot || slot >= this.slots || stamp !== stamp) {
      this.#badInput(slot, stamp);
    }
    // 1. Age expiry against the incoming stamp.
    if (this.#maxAge != undefined) {
      this.#discardExpired(stamp - this.#maxAge);
    }
    // 2. Out-of-order check; an equal stamp is in order.
    if (this.#ros1) {
      this.#checkOrderRos1(slot, stamp);
    } else {
      const latest = this.#latest;
      const last = latest[slot]!;
      if (stamp < last && last !== this.#zero) {
        this.#clear("out-of-order-reset");
      }
      latest[slot] = stamp;
    }
    // 3. Insert (becomes the head when the slot is empty).
    const len = this.#len;
    let n = len[slot]!;
    if (n === this.#cap) {
      this.#grow();
    }
    const p = slot * this.#cap + ((this.#start[slot]! + n) & this.#mask);
    this.#st[p] = stamp;
    this.#it[p] = item;
    len[slot] = ++n;
    // 4. Prune: keep head + maxQueueSize.
    const q = this.#maxQueueSize;
    if (q > 0 && n > q + 1) {
      this.#prune(slot, q + 1);
    }
    // 5. Matching loop.
    this.#match(slot);
  }

  /** Clears all held messages and state (keeps the configuration); reports them as `reset` if asked. */
  // eslint-disable-next-line @foxglove/no-boolean-parameters -- the CombinerPolicy contract
  public reset(reportDrops = false): void {
    if (reportDrops) {
      this.#clear("reset");
    } else {
      for (let i = 0; i < this.slots; i++) {
        this.#clearSlot(i);
      }
      this.#latest.fill(this.#zero);
      this.#pivot = UNSET;
    }
  }

  /** Number of messages held for `slot` (head + queue); for tests and diagnostics. */
  public held(slot: number): number {
    this.#checkSlot(slot);
    return this.#len[slot]!;
  }

  #checkOrderRos1(slot: number, stamp: Stamp): void {
    const n = this.#len[slot]!;
    if (n > 0 && stamp < this.#st[this.#pos(slot, n - 1)]!) {
      this.#clear("out-of-order-reset");
    }
  }

  #prune(slot: number, keep: number): void {
    while (this.#len[slot]! > keep) {
      this.#dropFront(slot, "queue-overflow");
    }
    this.#pivot = UNSET;
  }

  #match(n: number): void {
    const slots = this.slots;
    for (;;) {
      if (this.#pivot === UNSET && !this.#determinePivot()) {
        return;
      }
      const pivot = this.#pivot;
      if (pivot !== n && this.#canStillImprove(n)) {
        return;
      }
      // Every other slot advances, no short-circuit. Slot n was just evaluated and nothing changed
      // for it since, so evaluating it again (as fkie does) would return false: skipped.
      let improve = false;
      for (let i = 0; i < slots; i++) {
        if (i !== pivot && i !== n && this.#canStillImprove(i)) {
          improve = true;
        }
      }
      if (improve) {
        return;
      }
      if (this.#maxTimespan != undefined && this.#headsTimespan() > this.#maxTimespan) {
        this.#dropFront(pivot, "max-timespan");
        this.#pivot = UNSET;
        continue;
      }
      this.#emitHeads();
    }
  }

  /** Pivot = the slot whose head is latest (ties to the lowest index); false if a head is missing. */
  #determinePivot(): boolean {
    const cap = this.#cap;
    const mask = this.#mask;
    const st = this.#st;
    let pivot = UNSET;
    let ts = this.#zero;
    for (let i = 0; i < this.slots; i++) {
      if (this.#len[i] === 0) {
        return false;
      }
      const s = st[i * cap + (this.#start[i]! & mask)]!;
      if (s > ts) {
        ts = s;
        pivot = i;
      }
    }
    this.#pivot = pivot;
    this.#pivotTs = ts;
    return pivot !== UNSET;
  }

  /**
   * fkie's can_still_improve_at: advances slot i's head while the next message is strictly
   * closer to the pivot; true when the queue ran out and a later message could still be closer.
   */
  #canStillImprove(i: number): boolean {
    const st = this.#st;
    const it = this.#it;
    const base = i * this.#cap;
    const mask = this.#mask;
    const pts = this.#pivotTs;
    let start = this.#start[i]!;
    let len = this.#len[i]!;
    let s = st[base + start]!;
    let td = s < pts ? pts - s : s - pts;
    while (len > 1) {
      const nextStart = (start + 1) & mask;
      const next = st[base + nextStart]!;
      const tdNext = next < pts ? pts - next : next - pts;
      if (!(tdNext < td)) {
        return false;
      }
      // The head is passed over for a strictly closer message: commit, then report.
      const item = it[base + start] as T;
      it[base + start] = undefined;
      start = nextStart;
      this.#start[i] = start;
      this.#len[i] = --len;
      this.#host.drop(i, s, item, "not-selected");
      s = next;
      td = tdNext;
    }
    if (!(s < pts)) {
      return false;
    }
    const later = s + this.#minDist[i]!;
    return (later < pts ? pts - later : later - pts) <= td;
  }

  /** fkie's heads_timespan, including its "stamp 0 is unset" sentinel. */
  #headsTimespan(): number {
    const zero = this.#zero;
    let first = zero;
    let last = zero;
    for (let i = 0; i < this.slots; i++) {
      const s = this.#st[i * this.#cap + this.#start[i]!]!;
      if (first === zero || s < first) {
        first = s;
      }
      if (last === zero || s > last) {
        last = s;
      }
    }
    return last - first;
  }

  #emitHeads(): void {
    const slots = this.slots;
    const items = new Array<T>(slots);
    const stamps = new Array<number>(slots);
    const st = this.#st;
    const it = this.#it;
    const cap = this.#cap;
    const mask = this.#mask;
    for (let i = 0; i < slots; i++) {
      const start = this.#start[i]!;
      const p = i * cap + start;
      stamps[i] = st[p]!;
      items[i] = it[p] as T;
      it[p] = undefined;
      this.#start[i] = (start + 1) & mask;
      this.#len[i]!--;
    }
    this.#pivot = UNSET;
    this.#host.emit(items, stamps);
  }

  /** fkie's discard_expired: heads expire when `< cutoff`, queued messages when `<= cutoff`. */
  #discardExpired(cutoff: Stamp): void {
    for (let i = 0; i < this.slots; i++) {
      const n = this.#len[i]!;
      if (n === 0) {
        continue;
      }
      const base = i * this.#cap;
      const mask = this.#mask;
      const start = this.#start[i]!;
      const head = this.#st[base + start]!;
      if (head < cutoff) {
        this.#dropFront(i, "max-age");
        this.#pivot = UNSET;
        while (this.#len[i]! > 0 && this.#st[base + this.#start[i]!]! <= cutoff) {
          this.#dropFront(i, "max-age");
        }
      } else if (n > 1 && this.#st[base + ((start + 1) & mask)]! <= cutoff) {
        // The head stays (stamp == cutoff) but queued messages with the same stamp expire: drop
        // them from behind the head, then move the head forward into the freed position.
        const headItem = this.#it[base + start];
        this.#it[base + start] = undefined;
        let k = 1;
        while (k < n && this.#st[base + ((start + k) & mask)]! <= cutoff) {
          const p = base + ((start + k) & mask);
          const item = this.#it[p] as T;
          this.#it[p] = undefined;
          this.#host.drop(i, this.#st[p]!, item, "max-age");
          k++;
        }
        const newStart = (start + k - 1) & mask;
        this.#st[base + newStart] = head;
        this.#it[base + newStart] = headItem;
        this.#start[i] = newStart;
        this.#len[i] = n - (k - 1);
      }
    }
  }

  /** Removes slot i's front message and reports it. */
  #dropFront(i: number, reason: DropReason): void {
    const start = this.#start[i]!;
    const p = i * this.#cap + start;
    const item = this.#it[p] as T;
    this.#it[p] = undefined;
    this.#start[i] = (start + 1) & this.#mask;
    this.#len[i]!--;
    this.#host.drop(i, this.#st[p]!, item, reason);
  }

  /** fkie's reset(): empties every slot (reporting each message) and forgets the latest stamps. */
  #clear(reason: DropReason): void {
    // Update all state first, then report, so a throwing listener cannot leave half a reset.
    const dropped: [number, Stamp, T][] = [];
    for (let i = 0; i < this.slots; i++) {
      for (let k = 0; k < this.#len[i]!; k++) {
        const p = this.#pos(i, k);
        dropped.push([i, this.#st[p]!, this.#it[p] as T]);
      }
      this.#clearSlot(i);
    }
    this.#latest.fill(this.#zero);
    this.#pivot = UNSET;
    for (const [i, s, item] of dropped) {
      this.#host.drop(i, s, item, reason);
    }
  }

  #clearSlot(i: number): void {
    const base = i * this.#cap;
    this.#it.fill(undefined, base, base + this.#cap);
    this.#start[i] = 0;
    this.#len[i] = 0;
  }

  #pos(i: number, k: number): number {
    return i * this.#cap + ((this.#start[i]! + k) & this.#mask);
  }

  /** Doubles every ring (only with an unlimited queue, or after maxQueueSize grew). */
  #grow(): void {
    const oldCap = this.#cap;
    const cap = oldCap * 2;
    const st = new Float64Array(this.slots * cap);
    const it = new Array<T | undefined>(this.slots * cap).fill(undefined);
    for (let i = 0; i < this.slots; i++) {
      for (let k = 0; k < this.#len[i]!; k++) {
        const p = this.#pos(i, k);
        st[i * cap + k] = this.#st[p]!;
        it[i * cap + k] = this.#it[p];
      }
      this.#start[i] = 0;
    }
    this.#cap = cap;
    this.#mask = cap - 1;
    this.#st = st;
    this.#it = it;
  }

  #checkSlot(slot: number): void {
    if (!Number.isInteger(slot) || slot < 0 || slot >= this.slots) {
      throw new RangeError(
        `fkie/approximate-time: slot ${slot} does not exist (the policy has slots 0..${this.slots - 1})`,
      );
    }
  }

  #badInput(slot: number, _stamp: Stamp): never {
    this.#checkSlot(slot);
    throw new RangeError(
      `fkie/approximate-time: slot ${slot} received a message without a header stamp (NaN); drop it as "no-header" before the policy`,
    );
  }
}

function nextPow2(n: number): number {
  let c = 1;
  while (c < n) {
    c *= 2;
  }
  return c;
}
