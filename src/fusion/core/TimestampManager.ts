import type { Constraint } from "./Constraint";
import { Transaction } from "./Transaction";
import type { Variable } from "./Variable";
import { lowerBound, upperBound } from "./sortedSearch";
import type { Stamp } from "../../time";

/** What a motion model's generator returns for one segment `[begin, end]`. */
export interface MotionSegmentOutput {
  readonly constraints: readonly Constraint[];
  readonly variables: readonly Variable[];
}

/**
 * The motion model's segment generator. Called with `(t, t)` once, on the very first query, so the
 * model can seed its state history (its output is then ignored).
 */
export type MotionModelGenerator = (begin: Stamp, end: Stamp) => MotionSegmentOutput;

/** One entry of the motion-model history. */
export interface MotionModelSegment {
  /** NaN for the dummy entry of the last stamp. */
  readonly beginningStamp: Stamp;
  readonly endingStamp: Stamp;
  readonly constraints: readonly Constraint[];
  readonly variables: readonly Variable[];
}

/**
 * A history entry. A class, not an object literal, as GraphProblem's slots are (V8 would allocate
 * the literal's objects in the old generation, where a dead one keeps its young constraints and
 * variables alive until the next full collection).
 */
class HistorySegment implements MotionModelSegment {
  public constructor(
    public readonly beginningStamp: Stamp,
    public readonly endingStamp: Stamp,
    public readonly constraints: readonly Constraint[],
    public readonly variables: readonly Variable[],
  ) {}
}

/** Thrown by `query` when the oldest involved stamp is outside the history buffer. */
export class TimestampOutOfBufferError extends RangeError {
  public constructor(message: string) {
    super(message);
    this.name = "TimestampOutOfBufferError";
  }
}

/**
 * fuse_core::TimestampManager (reference/fuse.md §1.2): keeps the history
 * `stamp → segment{begin, end, constraints, variables}` of the motion-model chain and turns a
 * transaction's involved stamps into the segments that must be generated.
 *
 * `query(tx, {updateVariables = true})`:
 * 1. throws TimestampOutOfBufferError when the oldest involved stamp is older than both the
 *    history start and `newest − bufferLength`;
 * 2. augments the involved stamps with the history stamps from the entry at or before the first
 *    one through the entry just after the last one;
 * 3. for each consecutive pair: an existing segment is kept (with `updateVariables`, its stored
 *    variables that the tx also adds are re-added so they overwrite the sensor's values); a segment
 *    that the pair's end falls inside is removed (its constraints go to `removedConstraints`, its
 *    variables stay); every other pair is generated;
 * 4. adds a dummy entry for the last stamp (seeding the generator with `(t, t)` on the very first
 *    call), purges entries older than `bufferLength`, and merges the result into `tx` with
 *    overwrite = `updateVariables`.
 *
 * Stamps are relative integer nanoseconds; `bufferLength` is in ns, `Infinity` keeps everything.
 */
export class TimestampManager {
  readonly #generator: MotionModelGenerator;
  #bufferLength = 0;
  /** Sorted by key (the segment's beginning stamp, or the last stamp for the dummy). */
  #keys: Stamp[] = [];
  readonly #history = new Map<Stamp, MotionModelSegment>();

  public constructor(generator: MotionModelGenerator, bufferLength = Infinity) {
    this.#generator = generator;
    this.#bufferLength = bufferLength;
  }

  /** History length in ns (Infinity = keep everything). */
  public get bufferLength(): number {
    return this.#bufferLength;
  }

  /** Sets the history length (ns; Infinity = unlimited). Returns this. */
  public setBufferLength(ns: number): this {
    this.#bufferLength = ns;
    return this;
  }

  /** The history stamps, ascending. */
  public stamps(): readonly Stamp[] {
    return this.#keys;
  }

  /** The segment stored at `stamp`, if any. */
  public segment(stamp: Stamp): MotionModelSegment | undefined {
    return this.#history.get(stamp);
  }

  /** Forgets the whole history (a motion model's reset). Returns this. */
  public clear(): this {
    this.#keys = [];
    this.#history.clear();
    return this;
  }

  /** See the class comment. */
  public query(transaction: Transaction, options?: { readonly updateVariables?: boolean }): void {
    const updateVariables = options?.updateVariables ?? true;
    const stamps = transaction.involvedStamps;
    if (stamps.length === 0) {
      return;
    }
    const keys = this.#keys;
    const first = stamps[0]!;
    const last = stamps[stamps.length - 1]!;
    if (
      keys.length > 0 &&
      this.#bufferLength !== Infinity &&
      first < keys[0]! &&
      first < keys[keys.length - 1]! - this.#bufferLength
    ) {
      throw new TimestampOutOfBufferError(
        "All timestamps must be within the defined buffer length of the motion model",
      );
    }
    const motion = new Transaction(transaction.stamp);
    const all = this.#augmented(stamps);
    // Pairs to generate, flat (begin, end, begin, end, …): generated after every removal.
    const pairs: Stamp[] = [];
    for (let i = 1; i < all.length; i++) {
      const previous = all[i - 1]!;
      const current = all[i]!;
      const lb = lowerBound(this.#keys, previous);
      const key = this.#keys[lb];
      const seg = key == undefined ? undefined : this.#history.get(key);
      if (seg?.beginningStamp === previous && seg.endingStamp === current) {
        if (updateVariables) {
          for (const v of seg.variables) {
            if (transaction.getAddedVariable(v.uuid) != undefined) {
              motion.addVariable(v, { overwrite: updateVariables });
            }
          }
        }
        continue;
      }
      if (seg && seg.beginningStamp < current && seg.endingStamp >= current) {
        this.#removeSegment(key!, seg, motion);
      }
      pairs.push(previous, current);
    }
    for (let i = 0; i < pairs.length; i += 2) {
      this.#addSegment(pairs[i]!, pairs[i + 1]!, motion);
    }
    const n = this.#keys.length;
    if (n === 0 || this.#keys[n - 1]! < last) {
      if (n === 0) {
        this.#generator(last, last);
      }
      if (!this.#history.has(last)) {
        this.#insert(last, new HistorySegment(NaN, NaN, [], []));
      }
    }
    this.#purge();
    transaction.merge(motion, { overwrite: updateVariables });
  }

  /**
   * The involved stamps (ascending, once each) with the history stamps from the entry at or
   * before the first one through the entry just after the last one, ascending, once each.
   */
  #augmented(stamps: readonly Stamp[]): Stamp[] {
    const keys = this.#keys;
    let begin = upperBound(keys, stamps[0]!);
    if (begin > 0) {
      begin--;
    }
    let end = upperBound(keys, stamps[stamps.length - 1]!);
    if (end < keys.length) {
      end++;
    }
    const out: Stamp[] = [];
    let i = 0;
    let j = begin;
    while (i < stamps.length || j < end) {
      if (j >= end || (i < stamps.length && stamps[i]! < keys[j]!)) {
        out.push(stamps[i++]!);
      } else if (i >= stamps.length || keys[j]! < stamps[i]!) {
        out.push(keys[j++]!);
      } else {
        out.push(stamps[i++]!);
        j++;
      }
    }
    return out;
  }

  #addSegment(begin: Stamp, end: Stamp, tx: Transaction): void {
    const { constraints, variables } = this.#generator(begin, end);
    tx.addInvolvedStamp(begin);
    tx.addInvolvedStamp(end);
    for (const c of constraints) {
      tx.addConstraint(c);
    }
    for (const v of variables) {
      tx.addVariable(v);
    }
    this.#insert(begin, new HistorySegment(begin, end, constraints, variables));
  }

  #removeSegment(key: Stamp, seg: MotionModelSegment, tx: Transaction): void {
    tx.addInvolvedStamp(seg.beginningStamp);
    tx.addInvolvedStamp(seg.endingStamp);
    for (const c of seg.constraints) {
      tx.removeConstraint(c.uuid);
    }
    // Variables stay: other constraints still use them (as in fuse).
    this.#history.delete(key);
    this.#keys.splice(lowerBound(this.#keys, key), 1);
  }

  #insert(key: Stamp, seg: MotionModelSegment): void {
    if (!this.#history.has(key)) {
      this.#keys.splice(lowerBound(this.#keys, key), 0, key);
    }
    this.#history.set(key, seg);
  }

  #purge(): void {
    if (this.#bufferLength === Infinity || this.#keys.length <= 1) {
      return;
    }
    const endingStamp = this.#keys[this.#keys.length - 1]!;
    let drop = 0;
    // fuse compares with the first segment's ending stamp; the dummy's unset stamp (NaN here)
    // never qualifies, which only differs from fuse's zero stamp in an unreachable case.
    while (
      this.#keys.length - drop > 1 &&
      endingStamp - this.#history.get(this.#keys[drop]!)!.endingStamp > this.#bufferLength
    ) {
      this.#history.delete(this.#keys[drop]!);
      drop++;
    }
    if (drop > 0) {
      this.#keys.splice(0, drop);
    }
  }
}
