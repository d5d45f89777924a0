import type { MessageEvent } from "@foxglove/extension";

import { RingBuffer } from "./RingBuffer";

/**
 * The most recent `capacity` message events by sequence number, so that a synchronized tuple
 * (which the engine reports as sequence numbers) can be republished. Older messages are
 * forgotten: a tuple that completes after its messages were evicted is not republished (counted
 * in `misses`). Only filled while publishing is on.
 */
export class MessageCache {
  readonly #bySeq = new Map<number, MessageEvent>();
  readonly #order: RingBuffer<number>;
  /** Lookups of evicted or unknown sequence numbers. */
  public misses = 0;

  public constructor(capacity = 20_000) {
    this.#order = new RingBuffer(capacity);
  }

  /** Number of messages held. */
  public get size(): number {
    return this.#bySeq.size;
  }

  /** Remembers `event` under `seq`, evicting the oldest when full. */
  public put(seq: number, event: MessageEvent): void {
    if (this.#order.size === this.#order.capacity) {
      this.#bySeq.delete(this.#order.at(0)!);
    }
    this.#order.push(seq);
    this.#bySeq.set(seq, event);
  }

  /** The event for `seq`, or undefined (and a miss) when not held. */
  public get(seq: number): MessageEvent | undefined {
    const ev = this.#bySeq.get(seq);
    if (ev == undefined) {
      this.misses++;
    }
    return ev;
  }

  /** Forgets everything. */
  public clear(): void {
    this.#bySeq.clear();
    this.#order.clear();
    this.misses = 0;
  }
}
