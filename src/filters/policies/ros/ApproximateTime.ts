import type { Duration, Stamp } from "../../../time";
import { NO_STAMPS, type PolicyHost } from "../CombinerPolicy";
import { SlotPolicy } from "../SlotPolicy";
import { DOUBLE_SEED, packedDoubles, packedSlots } from "../packedArrays";
import { newItemArray, newStampArray } from "./freshArrays";

/** Options of {@link ApproximateTime} (config type `ros/approximate-time`). */
export interface RosApproximateTimeOptions {
  /**
   * Per-topic limit on held messages (the deque plus the messages provisionally consumed by the
   * current search). Required, integer >= 1; ROS recommends at least 2.
   */
  queueSize: number;
  /**
   * How much later sets are penalised when comparing candidates (dimensionless, >= 0).
   * Default 0.1, as in the ROS code (the ROS wiki says 0; the code and its tests use 0.1).
   */
  agePenalty?: number;
  /**
   * Per-slot lower bound on the gap between consecutive stamps of that topic (ns, >= 0;
   * default 0 for every slot). Used only to prove optimality early; a stream that violates its
   * bound is not rejected (ROS only warns once).
   */
  interMessageLowerBound?: readonly Duration[];
  /**
   * Largest span (latest minus earliest stamp, ns) a new candidate set may have; `null` or
   * absent = unlimited (ROS: INT32_MAX s + 999999999 ns). Checked only when there is no pivot.
   */
  maxIntervalDuration?: Duration | null;
  /**
   * Relative stamp of absolute time 0 (`TimeBase.zero`, default 0). Accepted for uniformity with
   * the other ROS policies; this algorithm never compares against absolute zero (C++ treats a
   * zero stamp as an ordinary time), so it has no effect here.
   */
  zero?: Stamp;
}

const NO_PIVOT = -1;
const INITIAL_CAPACITY = 16;

/**
 * ROS 2 message_filters `sync_policies::ApproximateTime` (8.0.2; reference
 * ros-message-filters.md §2.1): the pivot/candidate algorithm. Output sets use each message at
 * most once, do not cross, and depend only on stamps (not on arrival order across topics) as long
 * as no queue overflows. One `add` can emit several sets.
 *
 * Parity details kept on purpose: the age-penalty products are truncated to whole nanoseconds;
 * comparisons are exactly `>=` / `<` as in the C++ code; the earliest head wins ties for "start"
 * (lowest slot) while the latest head wins ties for "end" with the HIGHEST slot (the C++
 * `(t < time) ^ end` test; §2.1 of the reference says lowest — the code says highest); the max
 * interval filters only while there is no pivot; a topic that overflowed cannot become the pivot
 * until a later round clears its flag.
 *
 * Drops (each message once): `queue-overflow` (oldest message of an overflowing topic),
 * `max-timespan` (head discarded because the heads span more than `maxIntervalDuration`),
 * `not-selected` (skipped while searching: discarded when a better candidate was found, or
 * discarded because the would-be pivot topic had dropped messages), `reset`.
 *
 * ```ts
 * const policy = new ApproximateTime<Msg>(2, { queueSize: 10 });
 * policy.bind(host);
 * policy.add(0, stamp, msg, arrival);
 * ```
 */
export class ApproximateTime<T> extends SlotPolicy<T> {
  readonly #queueSize: number = 0;
  // Set by the constructor through setAgePenalty and setMaxIntervalDuration (which own their
  // defaults); initialized as doubles so that V8 holds them unboxed.
  #factor = DOUBLE_SEED; // 1 + age penalty; Math.trunc(d * factor) is time/scaleDuration inlined
  #maxInterval = DOUBLE_SEED;
  readonly #lowerBound: Float64Array;

  // Per slot, one ring holding past ++ deque: [head, head+past) is the past vector,
  // [head+past, head+len) the deque. Slot i uses [i*cap, (i+1)*cap) of the flat arrays.
  // Positions released on the hot path (published or dropped messages) are not cleared, as in
  // SlotRing: the ring overwrites them as it cycles, so a slot keeps at most `cap - len`
  // references to released messages (clearing them cost 2–3 % of the policy on W3); `reset`
  // releases everything.
  #cap = 0;
  #mask = 0;
  #stamps: number[];
  #items: (T | undefined)[];
  /** Per slot, the stamp of the deque's front (ring position head+past); valid while len > past. */
  readonly #front: number[];
  readonly #head: Int32Array;
  readonly #len: Int32Array;
  readonly #past: Int32Array;
  readonly #hasDropped: Uint8Array;
  readonly #virtualMoves: Int32Array;
  #numNonEmpty = 0;
  #pastTotal = 0; // sum of #past
  #droppedFlags = 0; // number of set #hasDropped flags

  #pivot = NO_PIVOT;
  #pivotTime = 0;
  #candStart = 0;
  #candEnd = 0;

  public constructor(slots: number, options: RosApproximateTimeOptions) {
    if (!Number.isInteger(slots) || slots < 2) {
      throw new RangeError(`ros/approximate-time: slots must be an integer >= 2, got ${slots}`);
    }
    const { queueSize } = options;
    if (!Number.isSafeInteger(queueSize) || queueSize < 1) {
      throw new RangeError(
        `ros/approximate-time: queueSize must be an integer >= 1 (ROS asserts queue_size > 0), got ${queueSize}`,
      );
    }
    super("ros/approximate-time", slots, "refuse");
    this.#queueSize = queueSize;
    this.#lowerBound = new Float64Array(slots);
    this.setAgePenalty(options.agePenalty ?? 0.1);
    this.setMaxIntervalDuration(options.maxIntervalDuration ?? null);
    const bounds = options.interMessageLowerBound;
    if (bounds != undefined) {
      if (bounds.length !== slots) {
        throw new RangeError(
          `ros/approximate-time: interMessageLowerBound has ${bounds.length} entries; it needs one per slot (${slots})`,
        );
      }
      bounds.forEach((b, i) => this.setInterMessageLowerBound(i, b));
    }
    this.#cap = Math.min(INITIAL_CAPACITY, nextPow2(queueSize + 2));
    this.#mask = this.#cap - 1;
    this.#stamps = packedDoubles(slots * this.#cap);
    this.#items = packedSlots<T>(slots * this.#cap);
    this.#front = packedDoubles(slots);
    this.#head = new Int32Array(slots);
    this.#len = new Int32Array(slots);
    this.#past = new Int32Array(slots);
    this.#hasDropped = new Uint8Array(slots);
    this.#virtualMoves = new Int32Array(slots);
  }

  /** Sets the age penalty (>= 0, finite). Throws RangeError otherwise. */
  public setAgePenalty(agePenalty: number): this {
    if (!Number.isFinite(agePenalty) || agePenalty < 0) {
      throw new RangeError(`ros/approximate-time: agePenalty must be a finite number >= 0, got ${agePenalty}`);
    }
    this.#factor = 1 + agePenalty;
    return this;
  }

  /** Sets slot `slot`'s inter-message lower bound (ns, >= 0). Throws RangeError otherwise. */
  public setInterMessageLowerBound(slot: number, bound: Duration): this {
    if (!this.isSlot(slot)) {
      throw new RangeError(`ros/approximate-time: no slot ${slot} (slots 0..${this.slots - 1})`);
    }
    if (!Number.isSafeInteger(bound) || bound < 0) {
      throw new RangeError(
        `ros/approximate-time: interMessageLowerBound[${slot}] must be whole nanoseconds >= 0, got ${bound}`,
      );
    }
    this.#lowerBound[slot] = bound;
    return this;
  }

  /** Sets the max interval (ns, >= 0), or `null` for unlimited. Throws RangeError otherwise. */
  public setMaxIntervalDuration(duration: Duration | null): this {
    if (duration == undefined) {
      this.#maxInterval = Infinity;
      return this;
    }
    if (!Number.isSafeInteger(duration) || duration < 0) {
      throw new RangeError(
        `ros/approximate-time: maxIntervalDuration must be whole nanoseconds >= 0 or null, got ${duration}`,
      );
    }
    this.#maxInterval = duration;
    return this;
  }


  public override add(slot: number, stamp: Stamp, item: T, _arrival: Stamp): void {
    const host = this.host;
    // hostForStamped's checks in one test, and what fails them (no host yet, a slot that does not
    // exist, a NaN stamp) out of line: add's bytecode counts against the delivery loop's inlining
    // budget (see UserSource.push).
    // eslint-disable-next-line @foxglove/strict-equality -- one compare, see UserSource.push
    if (host === undefined || !this.isSlot(slot) || stamp !== stamp) {
      this.hostForStamped(slot, stamp, item); // throws, or drops the message as `no-header`
      return;
    }
    const len = this.#len;
    const n = len[slot]!;
    if (n === this.#cap) {
      this.#grow();
    }
    const at = slot * this.#cap + ((this.#head[slot]! + n) & this.#mask);
    this.#stamps[at] = stamp;
    this.#items[at] = item;
    len[slot] = n + 1;
    if (this.#past[slot] === n) {
      // The deque just became non-empty.
      this.#front[slot] = stamp;
      if (++this.#numNonEmpty === this.slots) {
        this.#process(host);
        // During process() a deque may hold queueSize + 1 messages; the limit applies afterwards.
        if (len[slot] > this.#queueSize) {
          this.#overflow(host, slot);
        }
        return;
      }
    }
    // Without process() the slot holds n + 1 messages.
    if (n >= this.#queueSize) {
      this.#overflow(host, slot);
    }
  }

  /** Drops slot `slot`'s oldest message as `queue-overflow` (ROS's add, when the deque is full). */
  #overflow(host: PolicyHost<T>, slot: number): void {
    this.#recoverAll();
    this.#popFront(host, slot, "queue-overflow");
    if (this.#hasDropped[slot] === 0) {
      this.#hasDropped[slot] = 1;
      this.#droppedFlags++;
    }
    if (this.#pivot !== NO_PIVOT) {
      this.#pivot = NO_PIVOT;
      this.#process(host);
    }
  }

  // eslint-disable-next-line @foxglove/no-boolean-parameters -- signature fixed by CombinerPolicy
  public override reset(reportDrops = false): void {
    const host = this.host;
    for (let i = 0; i < this.slots; i++) {
      const base = i * this.#cap;
      for (let k = 0; k < this.#len[i]!; k++) {
        const at = base + ((this.#head[i]! + k) & this.#mask);
        if (reportDrops && host != undefined) {
          host.drop(i, this.#stamps[at]!, this.#items[at] as T, "reset");
        }
      }
      this.#head[i] = 0;
      this.#len[i] = 0;
      this.#past[i] = 0;
      this.#hasDropped[i] = 0;
    }
    // Every position, the released ones included (see the rings' comment).
    this.#items.fill(undefined);
    this.#numNonEmpty = 0;
    this.#pastTotal = 0;
    this.#droppedFlags = 0;
    this.#pivot = NO_PIVOT;
  }

  #process(host: PolicyHost<T>): void {
    const N = this.slots;
    const front = this.#front;
    const len = this.#len;
    const past = this.#past;
    const factor = this.#factor;
    while (this.#numNonEmpty === N) {
      // Heads of the deques: start = earliest (lowest slot on ties), end = latest (highest slot
      // on ties, as C++'s `(t < time) ^ end` does).
      let st = front[0]!;
      let et = st;
      let s = 0;
      let e = 0;
      // The earliest head of the other deques (for the virtual search's first round, below).
      let second = Infinity;
      // For three slots written out, as #publish does (W3: 2.4–3.2 % fewer instructions, 0–1.8 %
      // less time). Slot 1's test against `second` is dropped: it is still Infinity there.
      if (N === 3) {
        const t1 = front[1]!;
        const t2 = front[2]!;
        if (t1 < st) {
          second = st;
          st = t1;
          s = 1;
        } else {
          second = t1;
        }
        if (!(t1 < et)) {
          et = t1;
          e = 1;
        }
        if (t2 < st) {
          second = st;
          st = t2;
          s = 2;
        } else if (t2 < second) {
          second = t2;
        }
        if (!(t2 < et)) {
          et = t2;
          e = 2;
        }
      } else {
        for (let i = 1; i < N; i++) {
          const t = front[i]!;
          if (t < st) {
            second = st;
            st = t;
            s = i;
          } else if (t < second) {
            second = t;
          }
          if (!(t < et)) {
            et = t;
            e = i;
          }
        }
      }
      if (this.#droppedFlags !== 0) {
        // No dropped message could beat what is queued now, except on the end topic.
        const flags = this.#hasDropped;
        const keep = flags[e]!;
        flags.fill(0);
        flags[e] = keep;
        this.#droppedFlags = keep;
      }
      if (this.#pivot === NO_PIVOT) {
        if (et - st > this.#maxInterval) {
          this.#popFront(host, s, "max-timespan");
          continue;
        }
        if (this.#droppedFlags !== 0) {
          // The would-be pivot topic dropped messages: it must not become the pivot.
          this.#popFront(host, s, "not-selected");
          continue;
        }
        if (this.#pastTotal !== 0) {
          this.#makeCandidate(host);
        }
        this.#candStart = st;
        this.#candEnd = et;
        this.#pivot = e;
        this.#pivotTime = et;
      } else if (!(Math.trunc((et - this.#candEnd) * factor) >= st - this.#candStart)) {
        // Better than the candidate (the pivot and its time stay).
        if (this.#pastTotal !== 0) {
          this.#makeCandidate(host);
        }
        this.#candStart = st;
        this.#candEnd = et;
      }
      // Move the front of deque s into the past.
      const p = past[s]! + 1;
      past[s] = p;
      this.#pastTotal++;
      if (len[s] === p) {
        this.#numNonEmpty--;
      } else {
        front[s] = this.#stamps[s * this.#cap + ((this.#head[s]! + p) & this.#mask)]!;
      }
      if (s === this.#pivot) {
        this.#publish(host);
      } else if (Math.trunc((et - this.#candEnd) * factor) >= this.#pivotTime - this.#candStart) {
        this.#publish(host);
      } else if (this.#numNonEmpty < N) {
        // Only deque s is empty (its front just moved into the past), so the virtual search's
        // first round is known from the heads at hand: s at max(st + its lower bound, the pivot
        // time), every other deque at its head, whose latest is et and earliest `second`. That
        // round decides most searches (on W3 all but one in 250,000); only an undecided one
        // runs the search itself, which starts again from that round.
        const bound = st + this.#lowerBound[s]!;
        const ts = bound > this.#pivotTime ? bound : this.#pivotTime;
        const grown = Math.trunc(((et > ts ? et : ts) - this.#candEnd) * factor);
        if (grown >= this.#pivotTime - this.#candStart) {
          this.#publish(host);
        } else if (!(grown < (second < ts ? second : ts) - this.#candStart)) {
          this.#virtualSearch(host);
        }
      }
    }
  }

  /** Uses the lower bounds to try to prove the candidate optimal before more messages arrive. */
  #virtualSearch(host: PolicyHost<T>): void {
    const N = this.slots;
    const cap = this.#cap;
    const mask = this.#mask;
    const stamps = this.#stamps;
    const head = this.#head;
    const len = this.#len;
    const past = this.#past;
    const lowerBound = this.#lowerBound;
    const front = this.#front;
    const pivotTime = this.#pivotTime;
    const candStart = this.#candStart;
    const candEnd = this.#candEnd;
    const factor = this.#factor;
    let moved = 0;
    for (;;) {
      let vst = 0;
      let vet = 0;
      let vs = 0;
      for (let i = 0; i < N; i++) {
        const p = past[i]!;
        let t: number;
        if (len[i] === p) {
          // Empty deque: the earliest the next message can be, but not before the pivot.
          const bound = stamps[i * cap + ((head[i]! + p - 1) & mask)]! + lowerBound[i]!;
          t = bound > pivotTime ? bound : pivotTime;
        } else {
          t = front[i]!;
        }
        if (i === 0) {
          vst = vet = t;
        } else {
          if (t < vst) {
            vst = t;
            vs = i;
          }
          if (!(t < vet)) {
            vet = t;
          }
        }
      }
      const grown = Math.trunc((vet - candEnd) * factor);
      if (grown >= pivotTime - candStart) {
        this.#publish(host); // also undoes the virtual moves
        return;
      }
      if (grown < vst - candStart) {
        if (moved !== 0) {
          const moves = this.#virtualMoves;
          for (let i = 0; i < N; i++) {
            const m = moves[i]!;
            if (m !== 0) {
              const q = past[i]! - m;
              past[i] = q;
              moves[i] = 0;
              front[i] = stamps[i * cap + ((head[i]! + q) & mask)]!;
            }
          }
          this.#pastTotal -= moved;
          this.#recount();
        }
        return;
      }
      // vs cannot be the pivot here (see §2.1), so the loop terminates.
      if (moved === 0) {
        this.#virtualMoves.fill(0);
      }
      const p = past[vs]! + 1;
      past[vs] = p;
      if (len[vs] === p) {
        this.#numNonEmpty--;
      } else {
        front[vs] = stamps[vs * cap + ((head[vs]! + p) & mask)]!;
      }
      this.#virtualMoves[vs] = this.#virtualMoves[vs]! + 1;
      this.#pastTotal++;
      moved++;
    }
  }

  /** Drops the front of slot i's ring (past must be empty). */
  #popFront(host: PolicyHost<T>, i: number, reason: "queue-overflow" | "max-timespan" | "not-selected"): void {
    const base = i * this.#cap;
    const at = base + this.#head[i]!;
    const stamp = this.#stamps[at]!;
    const item = this.#items[at] as T;
    const h = (this.#head[i]! + 1) & this.#mask;
    this.#head[i] = h;
    const n = this.#len[i]! - 1;
    this.#len[i] = n;
    if (n === 0) {
      this.#numNonEmpty--;
    } else {
      this.#front[i] = this.#stamps[base + h]!;
    }
    host.drop(i, stamp, item, reason);
  }

  /** The current heads become the candidate: every past message is discarded for good. */
  #makeCandidate(host: PolicyHost<T>): void {
    this.#pastTotal = 0;
    for (let i = 0; i < this.slots; i++) {
      const p = this.#past[i]!;
      if (p === 0) {
        continue;
      }
      const base = i * this.#cap;
      let h = this.#head[i]!;
      this.#head[i] = (h + p) & this.#mask;
      this.#len[i] = this.#len[i]! - p;
      this.#past[i] = 0;
      for (let k = 0; k < p; k++) {
        const at = base + h;
        const item = this.#items[at] as T;
        host.drop(i, this.#stamps[at]!, item, "not-selected");
        h = (h + 1) & this.#mask;
      }
    }
  }

  #recoverAll(): void {
    for (let i = 0; i < this.slots; i++) {
      if (this.#past[i] !== 0) {
        this.#past[i] = 0;
        this.#front[i] = this.#stamps[i * this.#cap + this.#head[i]!]!;
      }
    }
    this.#pastTotal = 0;
    this.#recount();
  }

  #recount(): void {
    let n = 0;
    for (let i = 0; i < this.slots; i++) {
      if (this.#len[i]! - this.#past[i]! > 0) {
        n++;
      }
    }
    this.#numNonEmpty = n;
  }

  /** Emits the candidate (the oldest held message of each slot) and removes it. */
  #publish(host: PolicyHost<T>): void {
    const N = this.slots;
    const cap = this.#cap;
    const head = this.#head;
    const held = this.#items;
    const readsStamps = this.readsStamps;
    // For 2 and 3 slots the set is one array literal of the held items: when the host's emit is
    // inlined and does not keep the array (a Combiner's sinks get the items as arguments), escape
    // analysis removes the allocation. Filled through newItemArray, which has an allocation site
    // per arity, it was allocated for every set (about 40 bytes per set on W3).
    let items: T[];
    let stamps: Stamp[] = NO_STAMPS;
    if (N === 3) {
      const a = head[0]!;
      const b = cap + head[1]!;
      const c = 2 * cap + head[2]!;
      items = [held[a] as T, held[b] as T, held[c] as T];
      if (readsStamps) {
        const st = this.#stamps;
        stamps = [st[a]!, st[b]!, st[c]!];
      }
    } else if (N === 2) {
      const a = head[0]!;
      const b = cap + head[1]!;
      items = [held[a] as T, held[b] as T];
      if (readsStamps) {
        const st = this.#stamps;
        stamps = [st[a]!, st[b]!];
      }
    } else {
      items = newItemArray<T>(N);
      if (readsStamps) {
        stamps = newStampArray(N);
      }
      for (let i = 0; i < N; i++) {
        const at = i * cap + head[i]!;
        items[i] = held[at] as T;
        if (readsStamps) {
          stamps[i] = this.#stamps[at]!;
        }
      }
    }
    let nonEmpty = 0;
    const len = this.#len;
    const past = this.#past;
    const front = this.#front;
    const heldStamps = this.#stamps;
    const mask = this.#mask;
    // Every slot's oldest message leaves. For three slots written out: TurboFan checks each array
    // once, where the loop checks it again on every turn (W3 pipeline: 2.3 % fewer instructions,
    // 1–2 % less time).
    if (N === 3) {
      const h0 = (head[0]! + 1) & mask;
      const h1 = (head[1]! + 1) & mask;
      const h2 = (head[2]! + 1) & mask;
      head[0] = h0;
      head[1] = h1;
      head[2] = h2;
      const n0 = len[0]! - 1;
      const n1 = len[1]! - 1;
      const n2 = len[2]! - 1;
      len[0] = n0;
      len[1] = n1;
      len[2] = n2;
      past[0] = 0;
      past[1] = 0;
      past[2] = 0;
      if (n0 > 0) {
        nonEmpty++;
        front[0] = heldStamps[h0]!;
      }
      if (n1 > 0) {
        nonEmpty++;
        front[1] = heldStamps[cap + h1]!;
      }
      if (n2 > 0) {
        nonEmpty++;
        front[2] = heldStamps[2 * cap + h2]!;
      }
    } else {
      for (let i = 0; i < N; i++) {
        const next = (head[i]! + 1) & mask;
        head[i] = next;
        const n = len[i]! - 1;
        len[i] = n;
        past[i] = 0;
        if (n > 0) {
          nonEmpty++;
          front[i] = heldStamps[i * cap + next]!;
        }
      }
    }
    this.#numNonEmpty = nonEmpty;
    this.#pastTotal = 0;
    this.#pivot = NO_PIVOT;
    host.emit(items, stamps);
  }

  #grow(): void {
    const oldCap = this.#cap;
    const cap = oldCap * 2;
    const stamps = packedDoubles(this.slots * cap);
    const items = packedSlots<T>(this.slots * cap);
    for (let i = 0; i < this.slots; i++) {
      const n = this.#len[i]!;
      for (let k = 0; k < n; k++) {
        const from = i * oldCap + ((this.#head[i]! + k) & (oldCap - 1));
        stamps[i * cap + k] = this.#stamps[from]!;
        items[i * cap + k] = this.#items[from];
      }
      this.#head[i] = 0;
    }
    this.#cap = cap;
    this.#mask = cap - 1;
    this.#stamps = stamps;
    this.#items = items;
  }
}

function nextPow2(n: number): number {
  let p = 1;
  while (p < n) {
    p *= 2;
  }
  return p;
}
