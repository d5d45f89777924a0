import type { Stamp } from "../../time";
import { Filter } from "../Filter";
import { stripSlash, type TransformBuffer } from "./TransformBuffer";

/** Options of a TfFilter over items `T`. */
export interface TfFilterOptions<T> {
  /** Frames every message must be transformable into (leading "/" stripped, empty ones ignored). */
  readonly targetFrames: readonly string[];
  /** Messages held while waiting for transforms; the oldest is dropped beyond it. Must be >= 1. */
  readonly queueSize: number;
  /** Header stamp of an item (relative ns, see time/TimeBase). */
  readonly stampOf: (item: T) => Stamp;
  /** Header frame_id of an item. */
  readonly frameOf: (item: T) => string;
}

interface Held<T> {
  readonly item: T;
  readonly stamp: Stamp;
  readonly frame: string;
}

/**
 * fkie's `TfFilter` (reference fkie-message-filters.md §1, "TfFilter details"; port of
 * test_tf_filter): passes each message on once its frame can be transformed into every target
 * frame at its stamp, holding it until then.
 *
 * - Transformable now → sent at once. Otherwise held, and re-checked (in arrival order) after
 *   every change of the TransformBuffer; a held message is sent as soon as it becomes
 *   transformable.
 * - Its stamp lies more than the buffer's cache time before the latest transform data (tf2's
 *   "expired") → dropped `transform-unavailable` (at once, or when that becomes true).
 * - Empty frame_id → dropped `empty-frame-id`.
 * - More than `queueSize` held → the oldest is dropped `queue-overflow`.
 * - `reset()` forgets the held messages without fkie's failure callbacks; Lockstep still reports
 *   each one, as `reset`, so nothing disappears silently.
 * Messages for unknown frames wait (tf2 keeps such requests pending).
 *
 * ```ts
 * const tf = new TransformBuffer();
 * const flt = new TfFilter<Imu>(tf, { targetFrames: ["base_link"], queueSize: 10, stampOf, frameOf });
 * src.connectToSink(flt); flt.connectToSink(next);
 * ```
 */
export class TfFilter<T> extends Filter<[T], [T], T> {
  readonly #buffer: TransformBuffer;
  readonly #stampOf: (item: T) => Stamp;
  readonly #frameOf: (item: T) => string;
  #targets: string[] = [];
  #queueSize: number;
  #held: Held<T>[] = [];
  readonly #unsubscribe: () => void;

  public constructor(buffer: TransformBuffer, options: TfFilterOptions<T>) {
    super();
    this.#buffer = buffer;
    this.#stampOf = options.stampOf;
    this.#frameOf = options.frameOf;
    this.#queueSize = checkQueueSize(options.queueSize);
    this.setTargetFrames(options.targetFrames);
    this.#unsubscribe = buffer.onChange(() => {
      this.#recheck();
    });
  }

  /** The target frames in use (normalized). */
  public get targetFrames(): readonly string[] {
    return this.#targets;
  }

  /** Number of messages waiting for transforms. */
  public get pending(): number {
    return this.#held.length;
  }

  /** Replace the target frames (leading "/" stripped, empty frames ignored). */
  public setTargetFrames(frames: readonly string[]): this {
    this.#targets = [...new Set(frames.map(stripSlash).filter((f) => f !== ""))];
    return this;
  }

  /** Set a single target frame. */
  public setTargetFrame(frame: string): this {
    return this.setTargetFrames([frame]);
  }

  /** Change the queue size (>= 1); excess held messages are dropped oldest first. */
  public setQueueSize(queueSize: number): this {
    this.#queueSize = checkQueueSize(queueSize);
    this.#trim();
    return this;
  }

  /** Drop every held message (reported as `reset`), keep connections and settings. */
  public override reset(): void {
    const held = this.#held;
    this.#held = [];
    for (const h of held) {
      this.reportDrop(0, h.stamp, h.item, "reset", "TfFilter reset while waiting for a transform");
    }
  }

  /** Disconnect both sides and stop listening to the TransformBuffer. */
  public override disconnect(): void {
    this.#unsubscribe();
    super.disconnect();
  }

  protected override receive(item: T): void {
    const frame = stripSlash(this.#frameOf(item));
    const stamp = this.#stampOf(item);
    if (frame === "") {
      this.reportDrop(0, stamp, item, "empty-frame-id", "the message's frame_id is empty");
      return;
    }
    const state = this.#state(frame, stamp);
    if (state === "available") {
      this.send1(item);
      return;
    }
    if (state === "expired") {
      this.reportDrop(0, stamp, item, "transform-unavailable", this.#expiredDetail(frame));
      return;
    }
    this.#held.push({ item, stamp, frame });
    this.#trim();
  }

  #trim(): void {
    while (this.#held.length > this.#queueSize) {
      const old = this.#held.shift()!;
      this.reportDrop(0, old.stamp, old.item, "queue-overflow", `TfFilter queue of ${this.#queueSize} is full`);
    }
  }

  #state(frame: string, stamp: Stamp): "available" | "pending" | "expired" {
    let all = true;
    for (const target of this.#targets) {
      const a = this.#buffer.availability(target, frame, stamp);
      if (a === "expired") {
        return "expired";
      }
      all &&= a === "available";
    }
    return all ? "available" : "pending";
  }

  #expiredDetail(frame: string): string {
    return `its stamp is more than the transform cache (${this.#buffer.cacheTime} ns) older than the latest transform of "${frame}" into ${this.#targets.map((t) => `"${t}"`).join(", ")}`;
  }

  #recheck(): void {
    if (this.#held.length === 0) {
      return;
    }
    // Decide for every held message first (state before sending), then deliver in arrival order.
    const held = this.#held;
    const keep: Held<T>[] = [];
    const out: { h: Held<T>; ok: boolean }[] = [];
    for (const h of held) {
      const state = this.#state(h.frame, h.stamp);
      if (state === "pending") {
        keep.push(h);
      } else {
        out.push({ h, ok: state === "available" });
      }
    }
    if (out.length === 0) {
      return;
    }
    this.#held = keep;
    for (const { h, ok } of out) {
      if (ok) {
        this.send1(h.item);
      } else {
        this.reportDrop(0, h.stamp, h.item, "transform-unavailable", this.#expiredDetail(h.frame));
      }
    }
  }
}

function checkQueueSize(queueSize: number): number {
  if (!Number.isInteger(queueSize) || queueSize < 1) {
    throw new RangeError(`TfFilter: queueSize must be an integer >= 1, got ${queueSize}`);
  }
  return queueSize;
}
