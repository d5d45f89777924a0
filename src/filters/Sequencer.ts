import { upperBound, type Duration, type Stamp } from "../time";
import { Filter } from "./Filter";
import { dropItemOf } from "./FilterBase";

/** Options of a `Sequencer`. */
export interface SequencerOptions<In extends unknown[]> {
  /** The header stamp of an input (relative ns, see `time/TimeBase`); NaN = no header. Required. */
  stampOf: (...ins: In) => Stamp;
  /** How long an input may be held back waiting for older ones, in ns. Default 1 s (fkie's). */
  maxDelay?: Duration;
  /**
   * The relative stamp of absolute time 0 (`TimeBase.zero`): the cutoff starts, and `reset()`
   * puts it back, there (fkie starts from time 0). Default 0.
   */
  zero?: Stamp;
}

/**
 * Re-orders inputs by header stamp (fkie's `Sequencer`, reference §1).
 *
 * For each input with stamp s: `cutoff = max(cutoff, s - maxDelay)`; if `s < cutoff` the input
 * is dropped (`too-late`); otherwise it is stored, and every stored input with stamp <= cutoff is
 * released in stamp order (equal stamps in arrival order). `flush()` releases everything and
 * leaves the cutoff at the last released stamp. Inputs without a header (stamp NaN) are dropped
 * with `no-header`; `reset()` drops what is held (`reset`) and puts the cutoff back to `zero`.
 *
 * Guarantees: the output is sorted by stamp; every input is released or dropped exactly once.
 * State is updated before sending. If a sink throws, the exception propagates and the inputs of
 * that batch not yet sent go back to the front of the queue (they are released first next time),
 * where fkie would lose them.
 *
 * ```ts
 * const seq = new Sequencer<[Msg]>({ stampOf: (m) => m.stamp, maxDelay: 100_000_000 });
 * ```
 */
export class Sequencer<In extends unknown[]> extends Filter<In, In> {
  readonly #stampOf: (...ins: In) => Stamp;
  readonly #zero: Stamp = 0;
  #maxDelay: Duration = 0;
  #cutoff: Stamp = 0;
  /** Held inputs sorted by stamp (stable), from index #head on. */
  #stamps: Stamp[] = [];
  #items: In[] = [];
  #head = 0;

  public constructor(options: SequencerOptions<In>) {
    super();
    if (typeof options.stampOf !== "function") {
      throw new TypeError("Sequencer: options.stampOf must be a function (...inputs) => Stamp");
    }
    this.#stampOf = options.stampOf;
    this.#maxDelay = checkDelay(options.maxDelay ?? 1_000_000_000);
    this.#zero = options.zero ?? 0;
    this.#cutoff = this.#zero;
  }

  /** The max delay in ns. */
  public get maxDelay(): Duration {
    return this.#maxDelay;
  }

  /** The current cutoff: inputs older than this are dropped as `too-late`. */
  public get cutoff(): Stamp {
    return this.#cutoff;
  }

  /** Number of inputs held back. */
  public get size(): number {
    return this.#stamps.length - this.#head;
  }

  /** Change the max delay (ns, >= 0); applies from the next input on. */
  public setMaxDelay(maxDelay: Duration): this {
    this.#maxDelay = checkDelay(maxDelay);
    return this;
  }

  /** Release everything held, in stamp order; the cutoff becomes the last released stamp. */
  public flush(): void {
    const [stamps, items, head] = this.#takeHeld();
    this.#sendBatch(stamps.slice(head), items.slice(head), "flush");
  }

  /** Drop everything held (reported as `reset`) and put the cutoff back to `zero`. */
  public override reset(): void {
    const [stamps, items, head] = this.#takeHeld();
    this.#cutoff = this.#zero;
    for (let i = head; i < items.length; i++) {
      this.reportDrop(0, stamps[i]!, dropItemOf(items[i]!), "reset", "the Sequencer was reset");
    }
  }

  protected override receive(...ins: In): void {
    const stamp = this.#stampOf(...ins);
    if (Number.isNaN(stamp)) {
      this.reportDrop(0, stamp, dropItemOf(ins), "no-header", "the Sequencer needs a header stamp");
      return;
    }
    const cutoff = Math.max(this.#cutoff, stamp - this.#maxDelay);
    this.#cutoff = cutoff;
    if (stamp < cutoff) {
      if (this.reportsDrops) {
        this.reportDrop(
          0,
          stamp,
          dropItemOf(ins),
          "too-late",
          `stamp is ${cutoff - stamp} ns older than the cutoff (max delay ${this.#maxDelay} ns)`,
        );
      }
      return;
    }
    this.#insert(stamp, ins);
    // Release every held input with stamp <= cutoff, in order; state is updated first.
    const stamps = this.#stamps;
    const items = this.#items;
    let end = this.#head;
    while (end < stamps.length && stamps[end]! <= cutoff) {
      end++;
    }
    if (end === this.#head) {
      return;
    }
    const batchStamps = stamps.slice(this.#head, end);
    const batch = items.slice(this.#head, end);
    this.#head = end;
    this.#compact();
    this.#sendBatch(batchStamps, batch, "release");
  }

  /**
   * Send released inputs in order (a flush moves the cutoff to each sent stamp, as fkie does);
   * on an exception, put the unsent ones back in front.
   */
  #sendBatch(stamps: Stamp[], items: In[], mode: "flush" | "release"): void {
    let k = 0;
    try {
      for (; k < items.length; k++) {
        if (mode === "flush") {
          this.#cutoff = stamps[k]!;
        }
        this.sendArray(items[k]!);
      }
    } catch (error) {
      const head = this.#head;
      this.#stamps.splice(head, 0, ...stamps.slice(k + 1));
      this.#items.splice(head, 0, ...items.slice(k + 1));
      throw error;
    }
  }

  /** Empties the queue; returns what it held (valid from `head` on). */
  #takeHeld(): [stamps: Stamp[], items: In[], head: number] {
    const held: [Stamp[], In[], number] = [this.#stamps, this.#items, this.#head];
    this.#stamps = [];
    this.#items = [];
    this.#head = 0;
    return held;
  }

  #insert(stamp: Stamp, ins: In): void {
    const stamps = this.#stamps;
    // Upper bound: after every equal stamp, like a multimap insert.
    const n = stamps.length;
    const lo = n === this.#head || stamps[n - 1]! <= stamp ? n : upperBound(stamps, stamp, this.#head);
    stamps.splice(lo, 0, stamp);
    this.#items.splice(lo, 0, ins);
  }

  #compact(): void {
    if (this.#head > 32 && this.#head * 2 > this.#stamps.length) {
      this.#stamps.splice(0, this.#head);
      this.#items.splice(0, this.#head);
      this.#head = 0;
    }
  }
}

function checkDelay(maxDelay: number): number {
  if (!Number.isFinite(maxDelay) || maxDelay < 0) {
    throw new RangeError(
      `Sequencer: maxDelay must be a finite duration >= 0 ns, got ${String(maxDelay)}`,
    );
  }
  return maxDelay;
}
