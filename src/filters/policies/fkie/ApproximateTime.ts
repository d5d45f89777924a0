import type { Duration, Stamp } from "../../../time";
import type { DropReason } from "../../DropReason";
import { NO_STAMPS } from "../CombinerPolicy";
import { QueueAgePolicy } from "./QueueAgePolicy";
import { SlotRing } from "../SlotRing";
import { DOUBLE_SEED } from "../packedArrays";
import { checkDuration, checkSlotIndex, rejectInput } from "./checks";

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

const INITIAL_CAPACITY = 16;
/** Where `#generation` restarts: inside the small-integer range. */
const GENERATION_LIMIT = 0x3fffffff;

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
 * Hot path: per-slot ring buffers of stamps and items (packed arrays), allocated small and doubled
 * as they fill (never `maxQueueSize` up front); no allocation per message except the items array
 * of each emitted set (and its stamps array, unless the host says it does not read it).
 *
 * ```ts
 * const policy = new ApproximateTime<Msg>(2, { maxQueueSize: 10, maxAge: null });
 * policy.bind({ emit: (items, stamps) => use(items), drop: (slot, stamp, item, reason) => log(reason) });
 * policy.add(0, stampA, msgA, stampA);
 * ```
 */
export class ApproximateTime<T> extends QueueAgePolicy<T> {
  #maxTimespan: Duration | null;
  /**
   * Held as a double from the start (see DOUBLE_SEED): as a small-integer field (zero is usually
   * 0), TurboFan boxed every pivot stamp the pivot search merged with it, a heap number per search.
   */
  readonly #zero: Stamp = DOUBLE_SEED;
  readonly #ros1: boolean;
  readonly #rings: SlotRing<T>[];
  /**
   * The pivot's slot, or −1 when no pivot is set. −1 is written as a literal here and for
   * `#blocker`: a module constant takes 8 bytes of bytecode to read in a bundle, counted against
   * the delivery loop's inlining budget (see UserSource.push).
   */
  #pivot = -1;
  /** The pivot's stamp while a pivot is set. */
  #pivotStamp = DOUBLE_SEED;
  /**
   * A slot whose can_still_improve answered true against the current pivot and that has not
   * received a message since (−1 if none). Its answer is still true (it holds one message
   * before the pivot, and nothing it depends on changed), so the matching loop does not ask again:
   * on W3, 0.17 evaluations per message fewer. Forgotten when the pivot is determined anew, when
   * the slot receives a message, and when its minimum distance changes; every other change of
   * its ring (expiry, pruning, a reset) also unsets the pivot.
   */
  #blocker = -1;
  /**
   * Incremented whenever a pivot is determined. A ring's `settledGen` is the generation in which
   * its can_still_improve answered false from its loop (the message after the head is no closer
   * to the pivot). Appending cannot change that answer, so it holds until the pivot is determined
   * anew or the messages behind the head change without that (queued messages expiring behind a
   * head that stays). It restarts (and every ring's answer is voided) before it leaves the
   * small-integer range, so that a pipeline running for billions of sets keeps the memo.
   */
  #generation = 0;
  /**
   * The stamp being added, for `#admit`: a double field, so that it reaches `#admit` without a
   * double argument, which a call that is not inlined boxes.
   */
  #incoming = DOUBLE_SEED;
  /** Number of slots holding at least one message (a pivot needs all of them). */
  #filled = 0;

  /**
   * @param slots number of inputs (a positive integer)
   * @param options see {@link ApproximateTimeOptions}; throws RangeError naming a bad option
   */
  public constructor(slots: number, options: ApproximateTimeOptions = {}) {
    super("fkie/approximate-time", slots, options);
    this.#maxTimespan = checkDuration(options.maxTimespan ?? null, "maxTimespan");
    this.#zero = options.zero ?? 0;
    if (typeof this.#zero !== "number" || Number.isNaN(this.#zero)) {
      throw new RangeError(`fkie/approximate-time: zero must be a number (TimeBase.zero)`);
    }
    this.#ros1 = options.ros1OutOfOrder ?? false;
    // Rings start small and double as they fill (a huge maxQueueSize costs nothing up front).
    const cap =
      this.queueLimit > 0
        ? Math.min(INITIAL_CAPACITY, nextPow2(this.queueLimit + 2))
        : INITIAL_CAPACITY;
    this.#rings = Array.from({ length: slots }, () => {
      const ring = new SlotRing<T>(cap);
      ring.latest = this.#zero;
      return ring;
    });
    if (options.minDistance != undefined) {
      if (options.minDistance.length !== slots) {
        throw new RangeError(
          `fkie/approximate-time: minDistance has ${options.minDistance.length} entries but the policy has ${slots} slots (give one per slot)`,
        );
      }
      options.minDistance.forEach((d, i) => {
        this.#rings[i]!.minDist = checkDuration(d, `minDistance[${i}]`) ?? 0;
      });
    }
  }

  /** Max timespan in ns, or null (unconstrained). */
  public get maxTimespan(): Duration | null {
    return this.#maxTimespan;
  }
  /** The minimum distance of slot `slot` in ns. */
  public minDistance(slot: number): Duration {
    checkSlotIndex(this, slot);
    return this.#rings[slot]!.minDist;
  }

  /** Sets the max timespan of an emitted set (ns, or null). */
  public setMaxTimespan(maxTimespan: Duration | null): this {
    this.#maxTimespan = checkDuration(maxTimespan, "maxTimespan");
    return this;
  }

  /** Sets the known minimum distance between consecutive messages of one slot (ns). */
  public setMinDistance(slot: number, minDistance: Duration): this {
    checkSlotIndex(this, slot);
    this.#rings[slot]!.minDist = checkDuration(minDistance, `minDistance[${slot}]`) ?? 0;
    this.#blocker = -1;
    return this;
  }

  /** Adds one message (reference §2.1 add): expiry, order check, insert, prune, matching loop. */
  public override add(slot: number, stamp: Stamp, item: T, _arrival?: Stamp): void {
    const ring = this.#rings[slot];
    // 1.–2. Validation, age expiry and the out-of-order check, out of line unless nothing can
    // come of them: a known slot, no age limit, the ROS 2 rule and a stamp not older than the
    // slot's latest (a NaN stamp fails that comparison too). add's bytecode counts against the
    // delivery loop's inlining budget (see UserSource.push).
    if (
      // eslint-disable-next-line @foxglove/strict-equality -- one compare, see UserSource.push
      ring === undefined ||
      // eslint-disable-next-line @foxglove/strict-equality -- one compare, see UserSource.push
      this.ageLimit !== null ||
      this.#ros1 ||
      !(stamp >= ring.latest)
    ) {
      this.#incoming = stamp;
      this.#admit(slot);
    } else {
      ring.latest = stamp;
    }
    // 3. Insert (becomes the head when the slot is empty).
    if (ring!.len === 0) {
      this.#filled++;
    }
    ring!.push(stamp, item);
    // 4. Prune: keep head + maxQueueSize.
    const q = this.queueLimit;
    if (q > 0 && ring!.len > q + 1) {
      this.#prune(slot, q + 1);
    }
    // 5. Matching loop (without a pivot it can only start once every slot holds a message).
    if (this.#pivot !== -1 || this.#filled === this.slots) {
      this.#match(slot);
    }
  }

  /** Clears all held messages and state (keeps the configuration); reports them as `reset` if asked. */
  // eslint-disable-next-line @foxglove/no-boolean-parameters -- the CombinerPolicy contract
  public override reset(reportDrops = false): void {
    if (reportDrops) {
      this.#clear("reset");
    } else {
      for (const ring of this.#rings) {
        ring.clear();
        ring.latest = this.#zero;
      }
      this.#pivot = -1;
      this.#filled = 0;
    }
  }

  /** Number of messages held for `slot` (head + queue); for tests and diagnostics. */
  public held(slot: number): number {
    checkSlotIndex(this, slot);
    return this.#rings[slot]!.len;
  }

  /**
   * Steps 1–2 of add for the stamp in `#incoming`: rejects an unknown slot
   * or a NaN stamp (throws), discards expired messages, and resets the policy for a stamp going
   * backwards (fkie 1.x: older than the newest message held on the slot; 2.x/3.x: older than the
   * newest stamp ever received on it).
   */
  #admit(slot: number): void {
    const stamp = this.#incoming;
    const ring = this.#rings[slot];
    if (ring == undefined || stamp !== stamp) {
      rejectInput(this, slot, stamp);
    }
    if (this.ageLimit != undefined) {
      this.#discardExpired(stamp - this.ageLimit);
    }
    if (this.#ros1) {
      if (ring.len > 0 && stamp < ring.stampAt(ring.len - 1)) {
        this.#clear("out-of-order-reset");
      }
    } else {
      const latest = ring.latest;
      if (stamp < latest && latest !== this.#zero) {
        this.#clear("out-of-order-reset");
      }
      ring.latest = stamp;
    }
  }

  #prune(slot: number, keep: number): void {
    while (this.#rings[slot]!.len > keep) {
      this.#dropFront(slot, "queue-overflow");
    }
    this.#pivot = -1;
  }

  #match(slot: number): void {
    // A slot index is a small integer; `| 0` tells TurboFan so, and the loop below then selects
    // between untagged integers.
    const n = slot | 0;
    // Slot n received a message: its remembered answer is void (here rather than in add, which
    // must stay small; while no pivot is set, #blocker is not read).
    if (n === this.#blocker) {
      this.#blocker = -1;
    }
    const rings = this.#rings;
    const slots = rings.length;
    for (;;) {
      let pivot = this.#pivot;
      if (pivot === -1) {
        // determine_pivot: the latest head (ties to the lowest slot); none if a head is missing.
        if (this.#filled !== slots) {
          return;
        }
        let pts = this.#zero;
        for (let i = 0; i < slots; i++) {
          const ring = rings[i]!;
          const s = ring.st[ring.start]!;
          if (s > pts) {
            pts = s;
            pivot = i;
          }
        }
        if (pivot === -1) {
          return;
        }
        this.#pivot = pivot;
        this.#blocker = -1;
        if (++this.#generation === GENERATION_LIMIT) {
          this.#generation = 0;
          for (const ring of rings) {
            ring.settledGen = -1;
          }
        }
        this.#pivotStamp = pts;
      }
      // Slot n first (fkie returns at once if it can still improve), then every other slot with
      // no short-circuit, so that all of them advance. Slot n is not evaluated a second time as
      // fkie does: nothing changed for it in between, so that call would return false again.
      // One loop (k = 0 is slot n), so can_still_improve and the drop reporting behind it are
      // inlined once, which leaves TurboFan's inlining budget for the emission below. The slot
      // known to answer true (#blocker) is not asked again.
      let improve = false;
      for (let k = 0; k < slots; k++) {
        // k = 0 is slot n, then the others in slot order (k - 1 below n, k above it).
        const i = k === 0 ? n : k <= n ? k - 1 : k;
        if (i === pivot) {
          continue;
        }
        // The ring's own field, not a typed array beside them: one load fewer (1–2 % of the
        // policy alone).
        const ring = rings[i]!;
        if (
          i !== this.#blocker &&
          (ring.settledGen === this.#generation || !this.#canStillImprove(ring, i))
        ) {
          continue;
        }
        this.#blocker = i;
        if (k === 0) {
          return;
        }
        improve = true;
      }
      if (improve) {
        return;
      }
      if (this.#maxTimespan != undefined && this.#headsTimespan() > this.#maxTimespan) {
        this.#dropFront(pivot, "max-timespan");
        this.#pivot = -1;
        continue;
      }
      // emit_heads, written out here: with it #match is too large for TurboFan to inline into
      // add (the limit is 460 bytes of bytecode), so add stays small enough to be inlined into
      // its callers. Inlined, #match had made add too large for them: they called it with its
      // stamps boxed, a heap number per message. #match itself takes only the slot index.
      // Array literals are allocated with their final element kinds, cheaper than new Array(n)
      // followed by stores (which turns the stamps' backing store into doubles a second time).
      let items: T[];
      let stamps: Stamp[] = NO_STAMPS;
      const readsStamps = this.readsStamps;
      // Each branch reads the heads and moves every ring past its head, written out for two and
      // three slots: each ring is then checked once, where a loop checks it again on every turn
      // (W3: 1.2–1.6 % fewer instructions, 0.5–1.8 % less time).
      if (slots === 2) {
        const a = rings[0]!;
        const b = rings[1]!;
        if (readsStamps) {
          stamps = [a.st[a.start]!, b.st[b.start]!];
        }
        items = [a.it[a.start] as T, b.it[b.start] as T];
        a.start = (a.start + 1) & a.mask;
        b.start = (b.start + 1) & b.mask;
        this.#filled -= (--a.len === 0 ? 1 : 0) + (--b.len === 0 ? 1 : 0);
      } else if (slots === 3) {
        const a = rings[0]!;
        const b = rings[1]!;
        const c = rings[2]!;
        if (readsStamps) {
          stamps = [a.st[a.start]!, b.st[b.start]!, c.st[c.start]!];
        }
        items = [a.it[a.start] as T, b.it[b.start] as T, c.it[c.start] as T];
        a.start = (a.start + 1) & a.mask;
        b.start = (b.start + 1) & b.mask;
        c.start = (c.start + 1) & c.mask;
        this.#filled -= (--a.len === 0 ? 1 : 0) + (--b.len === 0 ? 1 : 0) + (--c.len === 0 ? 1 : 0);
      } else {
        items = new Array<T>(slots);
        if (readsStamps) {
          stamps = new Array<Stamp>(slots);
        }
        for (let i = 0; i < slots; i++) {
          const ring = rings[i]!;
          if (readsStamps) {
            stamps[i] = ring.st[ring.start]!;
          }
          items[i] = ring.it[ring.start] as T;
          ring.start = (ring.start + 1) & ring.mask;
          if (--ring.len === 0) {
            this.#filled--;
          }
        }
      }
      this.#pivot = -1;
      this.host.emit(items, stamps);
    }
  }

  /**
   * fkie's can_still_improve for slot i against the pivot stamp: passes over heads while
   * the next message is strictly closer (each a `not-selected` drop, state committed first), then
   * tells whether a later message could still be closer. The pivot stamp is read here, not
   * passed: when this is not inlined, a double argument is boxed (a heap number per call).
   *
   * Distances are compared without computing them. A ring's stamps never decrease (an older stamp
   * resets the policy), so for the head s and the next stamp x ≥ s, |x − p| < |s − p| exactly when
   * x > s and x + s < 2p; and a later message (at s + minDistance or after) can be closer than a
   * head s < p exactly when minDistance ≤ 2(p − s). No branch on which side of the pivot a stamp
   * lies (W3: up to 2.5 % less time than with the distances). Exact for stamps in the TimeBase
   * window (|stamp| ≤ 2^52 ns), where every sum and difference here stays an integer below 2^53.
   */
  #canStillImprove(ring: SlotRing<T>, i: number): boolean {
    const pts = this.#pivotStamp;
    const twoP = pts + pts;
    const st = ring.st;
    const mask = ring.mask;
    let start = ring.start;
    let s = st[start]!;
    while (ring.len > 1) {
      const nextStart = (start + 1) & mask;
      const next = st[nextStart]!;
      if (!(next > s && next + s < twoP)) {
        ring.settledGen = this.#generation;
        return false;
      }
      const item = ring.it[start] as T;
      ring.start = nextStart;
      ring.len--;
      this.host.drop(i, s, item, "not-selected");
      start = nextStart;
      s = next;
    }
    // Queue exhausted: a later message could still be closer unless the head is not earlier than
    // the pivot or the min distance rules it out.
    return s < pts && ring.minDist <= (pts - s) * 2;
  }

  /** fkie's heads_timespan, including its "stamp 0 is unset" sentinel. */
  #headsTimespan(): number {
    const zero = this.#zero;
    let first = zero;
    let last = zero;
    for (const ring of this.#rings) {
      const s = ring.st[ring.start]!;
      if (first === zero || s < first) {
        first = s;
      }
      if (last === zero || s > last) {
        last = s;
      }
    }
    return last - first;
  }

  /** fkie's discard_expired: heads expire when `< cutoff`, queued messages when `<= cutoff`. */
  #discardExpired(cutoff: Stamp): void {
    const rings = this.#rings;
    for (let i = 0; i < rings.length; i++) {
      const ring = rings[i]!;
      const n = ring.len;
      if (n === 0) {
        continue;
      }
      const head = ring.stampAt(0);
      if (head < cutoff) {
        this.#dropFront(i, "max-age");
        this.#pivot = -1;
        while (ring.len > 0 && ring.stampAt(0) <= cutoff) {
          this.#dropFront(i, "max-age");
        }
      } else if (n > 1 && ring.stampAt(1) <= cutoff) {
        // The head stays (stamp == cutoff) but queued messages with the same stamp expire: take
        // them from behind the head, move the head forward into the freed position, then report.
        const headItem = ring.itemAt(0);
        const expired: [Stamp, T][] = [];
        let k = 1;
        while (k < n && ring.stampAt(k) <= cutoff) {
          expired.push([ring.stampAt(k), ring.itemAt(k)]);
          ring.it[(ring.start + k) & ring.mask] = undefined;
          k++;
        }
        ring.it[ring.start] = undefined;
        ring.start = (ring.start + k - 1) & ring.mask;
        ring.settledGen = -1;
        ring.st[ring.start] = head;
        ring.it[ring.start] = headItem;
        ring.len = n - (k - 1);
        for (const [s, item] of expired) {
          this.host.drop(i, s, item, "max-age");
        }
      }
    }
  }

  /** Removes slot i's front message and reports it. */
  #dropFront(i: number, reason: DropReason): void {
    const ring = this.#rings[i]!;
    const start = ring.start;
    const stamp = ring.st[start]!;
    const item = ring.it[start] as T;
    ring.start = (start + 1) & ring.mask;
    if (--ring.len === 0) {
      this.#filled--;
    }
    this.host.drop(i, stamp, item, reason);
  }

  /** fkie's reset(): empties every slot (reporting each message) and forgets the latest stamps. */
  #clear(reason: DropReason): void {
    // Update all state first, then report, so a throwing listener cannot leave half a reset.
    const dropped: [number, Stamp, T][] = [];
    this.#rings.forEach((ring, i) => {
      for (let k = 0; k < ring.len; k++) {
        dropped.push([i, ring.stampAt(k), ring.itemAt(k)]);
      }
      ring.clear();
      ring.latest = this.#zero;
    });
    this.#pivot = -1;
    this.#filled = 0;
    for (const [i, s, item] of dropped) {
      this.host.drop(i, s, item, reason);
    }
  }
}

function nextPow2(n: number): number {
  let c = 1;
  while (c < n) {
    c *= 2;
  }
  return c;
}
