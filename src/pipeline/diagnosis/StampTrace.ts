import { TimeBase, type Stamp } from "../../time";

/**
 * What became of one recorded input message before it reached the policy: stamped; without a
 * header (a policy that takes headerless messages still gets it, by arrival); or dropped by the
 * pipeline before the policy for a zero (unset) stamp, a stamp it cannot place on the time base
 * (`invalid-stamp`: not a time, or outside the window of the first stamps, another clock) or
 * bytes that did not decode.
 */
export type TraceEventKind = "stamped" | "no-header" | "zero-stamp" | "invalid-stamp" | "undecodable";

/** The kinds by their stored code (the index). */
const KINDS: readonly TraceEventKind[] = ["stamped", "no-header", "zero-stamp", "invalid-stamp", "undecodable"];

/**
 * The synchronizer's view of a recording: every message of an input topic, once per slot it
 * feeds, in the order the pipeline received it (receive order, ties in file order), as
 * (slot, header stamp, receive time). This is all a combiner policy ever reads, so re-running a
 * policy on a trace gives exactly the sets the pipeline gives (see `runTrace`).
 *
 * Stamps are relative to `base` (see time/TimeBase); a message without a header has stamp NaN;
 * the messages the pipeline drops before the policy keep their kind ("zero-stamp",
 * "invalid-stamp", "undecodable") with stamp NaN. Memory: 17 bytes per event, growing by
 * doubling up to `capacity` events; events past the capacity are counted in `truncated` and not
 * stored.
 *
 * ```ts
 * const trace = new StampTrace(["/imu", "/odom"], base);
 * trace.add(0, 1_000_000, 1_020_000);
 * ```
 */
export class StampTrace {
  /** Input topic of each slot. */
  public readonly topics: readonly string[];
  /** The time base every stamp and arrival is relative to. */
  public readonly base: TimeBase;
  /** Largest number of events kept. */
  public readonly capacity: number;
  /** Events that arrived after the capacity was reached (not stored). */
  public truncated = 0;
  /**
   * Whole seconds the pipeline took off the receive times to put them on the stamps' clock (its
   * `receiveClockOffset`): 0 when they share one clock, as in a recording. When not 0 (a live
   * app's wall clock against sim-time stamps), the arrivals here are not what a `"receive"` stamp
   * source reads: that source puts an input on the receive clock, which only meets inputs on the
   * same source.
   */
  public receiveClockOffsetSec = 0;
  #slots = new Uint8Array(1024);
  #kinds = new Uint8Array(1024);
  #stamps = new Float64Array(1024);
  #arrivals = new Float64Array(1024);
  #length = 0;

  public constructor(topics: readonly string[], base: TimeBase, capacity = 4_000_000) {
    if (topics.length > 255) {
      throw new RangeError(`a stamp trace holds at most 255 slots, got ${topics.length}`);
    }
    this.topics = topics;
    this.base = base;
    this.capacity = capacity;
  }

  /** Number of slots. */
  public get slots(): number {
    return this.topics.length;
  }

  /** Number of stored events. */
  public get length(): number {
    return this.#length;
  }

  /**
   * Appends one event: `stamp` NaN for a headerless message; for a kind the pipeline drops before
   * the policy (see TraceEventKind) `stamp` is ignored.
   */
  public add(slot: number, stamp: Stamp, arrival: Stamp, kind: TraceEventKind = "stamped"): void {
    if (this.#length >= this.capacity) {
      this.truncated++;
      return;
    }
    if (this.#length === this.#slots.length) {
      this.#grow();
    }
    const i = this.#length++;
    this.#slots[i] = slot;
    this.#kinds[i] = kind === "stamped" ? (stamp === stamp ? 0 : 1) : KINDS.indexOf(kind);
    this.#stamps[i] = kind === "stamped" || kind === "no-header" ? stamp : NaN;
    this.#arrivals[i] = arrival;
  }

  /** Slot of event i. */
  public slot(i: number): number {
    return this.#slots[i]!;
  }

  /** Header stamp of event i (NaN when headerless or zero). */
  public stamp(i: number): Stamp {
    return this.#stamps[i]!;
  }

  /** Receive time of event i. */
  public arrival(i: number): Stamp {
    return this.#arrivals[i]!;
  }

  /** What the pipeline made of event i's header. */
  public kind(i: number): TraceEventKind {
    return KINDS[this.#kinds[i]!]!;
  }

  /**
   * Whether the pipeline drops event i before the policy: a zero or invalid stamp, an undecodable
   * message, or a headerless one without a receive time on the time base.
   */
  public droppedBeforePolicy(i: number): boolean {
    return this.#kinds[i]! >= 2 || (this.#kinds[i] === 1 && this.#arrivals[i] !== this.#arrivals[i]);
  }

  /**
   * The trace as `lockstep replay` input (JSON Lines, absolute ns), the events the pipeline drops
   * before the policy left out (replay would pass them to it).
   */
  public *replayLines(): Generator<string> {
    for (let i = 0; i < this.#length; i++) {
      if (this.droppedBeforePolicy(i)) {
        continue;
      }
      const stamp = this.#kinds[i] === 1 ? "null" : `"${this.base.format(this.#stamps[i]!)}"`;
      yield `{"slot":${this.#slots[i]!},"stamp":${stamp},"arrival":"${this.base.format(this.#arrivals[i]!)}"}`;
    }
  }

  /** A trace from absolute stamps (ns, `null` = headerless), for tests and stamp-trace tools. */
  public static fromAbsolute(
    topics: readonly string[],
    events: readonly { slot: number; stamp: bigint | null; arrival?: bigint }[],
  ): StampTrace {
    const first = events.find((e) => e.stamp != undefined || e.arrival != undefined);
    const base = TimeBase.forFirstStamp(first?.stamp ?? first?.arrival ?? 0n);
    const trace = new StampTrace(topics, base);
    for (const e of events) {
      const arrivalNs = e.arrival ?? e.stamp;
      const stamp = e.stamp == undefined ? NaN : base.fromNanoseconds(e.stamp);
      const arrival = arrivalNs == undefined ? stamp : base.fromNanoseconds(arrivalNs);
      trace.add(e.slot, stamp, arrival);
    }
    return trace;
  }

  #grow(): void {
    const n = Math.min(this.#slots.length * 2, Math.max(this.capacity, 1024));
    this.#slots = withCopyOf(new Uint8Array(n), this.#slots);
    this.#kinds = withCopyOf(new Uint8Array(n), this.#kinds);
    this.#stamps = withCopyOf(new Float64Array(n), this.#stamps);
    this.#arrivals = withCopyOf(new Float64Array(n), this.#arrivals);
  }
}

/** `target` (at least as long as `source`) with `source` copied to its start. */
function withCopyOf<A extends Uint8Array | Float64Array>(target: A, source: ArrayLike<number>): A {
  target.set(source);
  return target;
}
