import type { Stamp } from "../time";
import { BufferPolicy, isBufferPolicy } from "./BufferPolicy";
import { Filter } from "./Filter";
import { dropItemOf } from "./FilterBase";

/** Options of a `Buffer`. */
export interface BufferOptions<In extends unknown[]> {
  /** Labels drop events with the inputs' stamp. Default: none (drops carry stamp NaN). */
  stampOf?: (...ins: In) => Stamp;
  /**
   * How `spin()` yields to the event loop between batches. Default: a macrotask
   * (`setImmediate` where it exists, else a `MessageChannel` message, else `setTimeout(0)`), so
   * that rendering and input events run between batches.
   */
  yieldToEventLoop?: () => Promise<void>;
}

/**
 * Store and forward, or a valve (fkie's `Buffer`, reference §2.5), without threads (DESIGN §2).
 *
 * - `Discard`: incoming data is dropped (`discarded`).
 * - `Passthru`: incoming data is sent on at once.
 * - `Queue`: incoming data is stored in a FIFO of at most `maxQueueSize` items; when it is full,
 *   the OLDEST item is dropped (`queue-overflow`). A size of 0 keeps nothing: every item is
 *   dropped at once as `queue-overflow` (fkie's behaviour).
 *
 * Consumers: `processOne(timeout?)` sends one item (waiting for one if needed), `wait(timeout?)`
 * waits for data, `spinOnce()` synchronously sends what is queued now, `spin()` keeps sending
 * until the policy leaves `Queue`, yielding to the event loop between batches. Waiting never
 * polls: a waiter wakes when data arrives, the policy changes, or its timeout expires.
 *
 * Policy switches (`setPolicy`): to `Discard` drops everything queued (`reset`); to `Passthru`
 * sends everything queued before returning; leaving `Queue` makes pending `wait`/`processOne`
 * resolve false and `spin` return. If a sink throws while queued items are being sent, the
 * exception propagates and the items not yet sent stay queued, in order.
 *
 * ```ts
 * const buffer = new Buffer<[Msg]>(BufferPolicy.Queue, 100);
 * chain(source, buffer, expensiveFilter);
 * void buffer.spin(); // forwards in the background until buffer.setPolicy(BufferPolicy.Discard)
 * ```
 */
export class Buffer<In extends unknown[]> extends Filter<In, In> {
  #policy: BufferPolicy;
  #capacity = 0;
  /** FIFO: items from index #head on. */
  #queue: In[] = [];
  #head = 0;
  readonly #stampOf: ((...ins: In) => Stamp) | undefined;
  readonly #yield: () => Promise<void>;
  /** Wake-ups of pending waits, called on any change (data or policy). */
  #waiters: (() => void)[] = [];

  /**
   * `policy` defaults to Discard and `maxQueueSize` to 1 (items, an integer >= 0), as in fkie.
   */
  public constructor(
    policy: BufferPolicy = BufferPolicy.Discard,
    maxQueueSize = 1,
    options: BufferOptions<In> = {},
  ) {
    super();
    this.#policy = checkPolicy(policy);
    this.#capacity = checkSize(maxQueueSize);
    this.#stampOf = options.stampOf;
    this.#yield = options.yieldToEventLoop ?? yieldToEventLoop;
  }

  /** The current policy. */
  public get policy(): BufferPolicy {
    return this.#policy;
  }

  /** The queue capacity in items. */
  public get maxQueueSize(): number {
    return this.#capacity;
  }

  /** Number of queued items. */
  public get size(): number {
    return this.#queue.length - this.#head;
  }

  /** Whether items are queued (a following `processOne` or `spinOnce` will send data). */
  public hasSome(): boolean {
    return this.#queue.length > this.#head;
  }

  /**
   * Change the policy; `maxQueueSize` > 0 also sets the capacity when the policy is `Queue`
   * (shrinking drops the oldest items as `queue-overflow`), 0 keeps it. To `Discard`: the queue
   * is dropped (`reset`). To `Passthru`: the queue is sent before this returns (sink exceptions
   * propagate). Leaving `Queue` wakes every pending `wait`, `processOne` and `spin`.
   */
  public setPolicy(policy: BufferPolicy, maxQueueSize = 0): this {
    checkPolicy(policy);
    checkSize(maxQueueSize);
    this.#policy = policy;
    try {
      switch (policy) {
        case BufferPolicy.Discard:
          this.#dropAll("reset", "the Buffer switched to Discard");
          break;
        case BufferPolicy.Queue:
          if (maxQueueSize > 0) {
            this.#capacity = maxQueueSize;
            this.#trim();
          }
          break;
        case BufferPolicy.Passthru:
          this.#sendQueued();
          break;
      }
    } finally {
      this.#wake();
    }
    return this;
  }

  /** Drop everything queued (reported as `reset`); the policy stays. */
  public override reset(): void {
    this.#dropAll("reset", "the Buffer was reset");
  }

  /**
   * Resolve true once items are queued; false if the policy is not (or stops being) `Queue` or
   * `timeoutMs` (ms; default: no timeout) expires first. Resolves at once when items are queued.
   */
  public async wait(timeoutMs?: number): Promise<boolean> {
    return await this.#whenQueued(
      timeoutMs,
      () => true,
      () => this.#isQueue() && this.hasSome(),
    );
  }

  /**
   * Send the oldest queued item, waiting for one if there is none (see `wait`). Resolves true
   * when an item was sent, false otherwise; a sink exception rejects the promise. When an item
   * is queued it is sent synchronously, before this call returns its promise.
   */
  public async processOne(timeoutMs?: number): Promise<boolean> {
    return await this.#whenQueued(
      timeoutMs,
      () => {
        this.sendArray(this.#shift());
        return true;
      },
      () => false,
    );
  }

  /**
   * Send, synchronously and oldest first, at most `max` queued items (a slice of the work, so a
   * UI thread can process a queue between frames). Returns how many were sent. Like `spinOnce`
   * it does not check the policy; an item whose sink throws is not sent again.
   */
  public processSome(max: number): number {
    let sent = 0;
    while (sent < max && this.hasSome()) {
      sent++;
      this.sendArray(this.#shift());
    }
    return sent;
  }

  /**
   * Send, synchronously and in order, the items queued at the time of the call (not those that
   * arrive meanwhile). Like fkie's `spin_once` it does not check the policy.
   */
  public spinOnce(): void {
    this.#sendQueued();
  }

  /**
   * Forward queued data until the policy leaves `Queue`: sends each batch with `spinOnce`, then
   * yields to the event loop if more data is already queued, or sleeps until data arrives.
   * Several `spin` calls may run at once and share the work. Rejects if a sink throws.
   */
  public async spin(): Promise<void> {
    while (await this.wait()) {
      this.#sendQueued();
      if (this.hasSome()) {
        await this.#yield();
      }
    }
  }

  protected override receive(...ins: In): void {
    switch (this.#policy) {
      case BufferPolicy.Discard:
        if (this.reportsDrops) {
          this.reportDrop(
            0,
            this.#stampOf?.(...ins) ?? NaN,
            dropItemOf(ins),
            "discarded",
            "the Buffer policy is Discard",
          );
        }
        break;
      case BufferPolicy.Passthru:
        this.sendArray(ins);
        break;
      case BufferPolicy.Queue:
        this.#queue.push(ins);
        this.#trim();
        this.#wake();
        break;
    }
  }

  /**
   * The loop of `wait` and `processOne`: false while the policy is not `Queue`; `ready()` as soon
   * as items are queued (checked before the first await, so a queued item is handled before the
   * caller gets the promise); `timedOut()` when the deadline passes first. A throw rejects.
   */
  async #whenQueued(
    timeoutMs: number | undefined,
    ready: () => boolean,
    timedOut: () => boolean,
  ): Promise<boolean> {
    const deadline = deadlineOf(timeoutMs);
    for (;;) {
      if (this.#policy !== BufferPolicy.Queue) {
        return false;
      }
      if (this.hasSome()) {
        return ready();
      }
      if (!(await this.#changed(deadline))) {
        return timedOut();
      }
    }
  }

  #shift(): In {
    const item = this.#queue[this.#head]!;
    this.#head++;
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 64 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Drop the oldest items while the queue is over capacity. */
  #trim(): void {
    while (this.size > this.#capacity) {
      const ins = this.#shift();
      if (this.reportsDrops) {
        this.reportDrop(
          0,
          this.#stampOf?.(...ins) ?? NaN,
          dropItemOf(ins),
          "queue-overflow",
          `the Buffer queue holds at most ${this.#capacity} items; the oldest made room`,
        );
      }
    }
  }

  #dropAll(reason: "reset", detail: string): void {
    const items = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    if (this.reportsDrops) {
      for (const ins of items) {
        this.reportDrop(0, this.#stampOf?.(...ins) ?? NaN, dropItemOf(ins), reason, detail);
      }
    }
  }

  /** Send the items queued now; on a sink exception put the unsent ones back in front. */
  #sendQueued(): void {
    const batch = this.#queue.slice(this.#head);
    this.#queue = [];
    this.#head = 0;
    let k = 0;
    try {
      for (; k < batch.length; k++) {
        this.sendArray(batch[k]!);
      }
    } catch (error) {
      const rest = batch.slice(k + 1);
      if (this.#policy === BufferPolicy.Discard) {
        this.#queue = rest;
        this.#dropAll("reset", "the Buffer switched to Discard");
      } else {
        this.#queue = [...rest, ...this.#queue.slice(this.#head)];
        this.#head = 0;
        this.#trim();
      }
      throw error;
    }
  }

  /** Wake every pending wait (they re-check the state). */
  #wake(): void {
    const waiters = this.#waiters;
    if (waiters.length === 0) {
      return;
    }
    this.#waiters = [];
    for (const wake of waiters) {
      wake();
    }
  }

  // A method, not a field read: the policy may change across an `await`.
  #isQueue(): boolean {
    return this.#policy === BufferPolicy.Queue;
  }

  /** Resolve true at the next change, false at `deadline` (ms since the epoch; Infinity = never). */
  async #changed(deadline: number): Promise<boolean> {
    return await new Promise<boolean>((resolve) => {
      if (deadline === Infinity) {
        this.#waiters.push(() => {
          resolve(true);
        });
        return;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        resolve(false);
        return;
      }
      const waiter = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) {
          this.#waiters.splice(i, 1);
        }
        resolve(false);
      }, remaining);
      this.#waiters.push(waiter);
    });
  }
}

function deadlineOf(timeoutMs: number | undefined): number {
  if (timeoutMs == undefined) {
    return Infinity;
  }
  if (Number.isNaN(timeoutMs) || timeoutMs < 0) {
    throw new RangeError(`Buffer: timeout must be >= 0 ms, got ${timeoutMs}`);
  }
  return Date.now() + timeoutMs;
}

function checkPolicy(policy: BufferPolicy): BufferPolicy {
  if (!isBufferPolicy(policy)) {
    throw new RangeError(
      `Buffer: unknown policy ${JSON.stringify(policy)}; use "discard", "queue" or "passthru"`,
    );
  }
  return policy;
}

function checkSize(maxQueueSize: number): number {
  if (!Number.isSafeInteger(maxQueueSize) || maxQueueSize < 0) {
    throw new RangeError(
      `Buffer: maxQueueSize must be an integer >= 0 (items), got ${String(maxQueueSize)}`,
    );
  }
  return maxQueueSize;
}

type Scheduler = {
  setImmediate?: (callback: () => void) => unknown;
  MessageChannel?: new () => {
    port1: { onmessage: (() => void) | null; close(): void };
    port2: { postMessage(message: unknown): void; close(): void };
  };
};

/** Resolve in a later macrotask, so that pending I/O, rendering and input events run first. */
async function yieldToEventLoop(): Promise<void> {
  const g = globalThis as Scheduler;
  await new Promise<void>((resolve) => {
    if (g.setImmediate) {
      g.setImmediate(resolve);
    } else if (g.MessageChannel) {
      const channel = new g.MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        channel.port2.close();
        resolve();
      };
      channel.port2.postMessage(undefined);
    } else {
      setTimeout(resolve, 0);
    }
  });
}
