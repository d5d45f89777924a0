import type { PipelineConfig } from "./config";
import { createPolicy } from "./createPolicy";
import { Buffer } from "../filters/Buffer";
import { Combiner } from "../filters/Combiner";
import { Sink } from "../filters/Sink";
import { UserSource } from "../filters/UserSource";
import type { BufferPolicyName } from "../filters/bufferParameters";
import type { CombinerPolicy } from "../filters/policies/CombinerPolicy";
import type { Stamp, TimeBase } from "../time";
import type { DropReason } from "../time/DropReason";

/** What travels through a SyncGraph: a slot and the times the policy matches by. */
export interface SyncItem {
  readonly slot: number;
  /** Stamp relative to the graph's time base; NaN for a headerless message. */
  readonly stamp: Stamp;
  /** Receive time on the same base. */
  readonly arrival: Stamp;
}

/**
 * Receives a message the buffer (`stage` "buffer") or the policy dropped, as arguments so that a
 * drop allocates nothing on its way out of the graph.
 */
export type SyncDropHandler<I extends SyncItem> = (
  stage: "buffer" | "policy",
  slot: number,
  stamp: Stamp,
  item: I,
  reason: DropReason,
  detail: string | undefined,
) => void;

/** The Buffer's state, for views ("12 queued, 3 dropped"). Plain data. */
export interface BufferState {
  readonly policy: BufferPolicyName;
  /** Capacity of the queue (items). */
  readonly maxQueueSize: number;
  /** Items waiting in the queue now. */
  readonly queued: number;
  /** Items the buffer dropped so far (`discarded`, `queue-overflow`, `reset`). */
  readonly dropped: number;
}

/** Where a SyncGraph delivers its results. Called synchronously from `push` / `processQueued`. */
export interface SyncGraphHandlers<I extends SyncItem> {
  /** A synchronized set, items in slot order. */
  tuple(items: I[]): void;
  /** A message the buffer or the policy dropped. */
  readonly drop: SyncDropHandler<I>;
  /** An item leaves the buffer for the combiner (counts "accepted"). */
  accepted?(item: I): void;
}

/** Options of a SyncGraph. */
export interface SyncGraphOptions {
  /**
   * "on-push" (default): a queueing buffer is drained after every push, like a consumer that
   * keeps up (an analysis). "manual": the owner calls `processQueued` (a live view processing
   * the queue in slices between frames); the queue then fills and drops its oldest items.
   */
  readonly drain?: "on-push" | "manual";
}

/**
 * The synchronization graph every Lockstep front end runs (`Pipeline`, `lockstep replay`):
 * one input → Buffer (config `buffer`, default passthru) → per-slot sources → Combiner(policy) →
 * tuples. Items keep their arrival order through the buffer, so a queue that is drained
 * changes nothing; a full queue drops its oldest item (`queue-overflow`), `discard` drops every
 * item (`discarded`). Every drop is reported once through `handlers.drop`.
 *
 * Throws ConfigError (from `createPolicy`) when the policy rejects the config.
 *
 * ```ts
 * const graph = new SyncGraph(config, new TimeBase(0), { tuple: print, drop: report });
 * graph.setTimeBase(TimeBase.forFirstStamp(first)); // before the first item
 * graph.push({ slot: 0, stamp, arrival: stamp });
 * ```
 */
export class SyncGraph<I extends SyncItem> {
  readonly #config: Pick<PipelineConfig, "policy" | "slots">;
  readonly #input = new UserSource<[I]>();
  readonly #buffer: Buffer<[I]>;
  readonly #combiner: Combiner<I[]>;
  readonly #slotSources: UserSource<[I]>[] = [];
  readonly #drainOnPush: boolean;
  #bufferDropped = 0;

  public constructor(
    config: Pick<PipelineConfig, "policy" | "slots" | "buffer">,
    timeBase: TimeBase,
    handlers: SyncGraphHandlers<I>,
    options: SyncGraphOptions = {},
  ) {
    this.#config = config;
    this.#drainOnPush = (options.drain ?? "on-push") === "on-push";
    this.#combiner = new Combiner<I[]>(createPolicy<I>(config.policy, config.slots, timeBase), {
      stampOf: (item) => item.stamp,
      arrivalOf: (item) => item.arrival,
    });
    this.#combiner.setName(`${config.policy.type} combiner`);
    this.#buffer = new Buffer<[I]>(
      config.buffer?.policy ?? "passthru",
      config.buffer?.maxQueueSize ?? 1,
      { stampOf: (item) => item.stamp },
    ).setName("buffer");
    this.#buffer.connectToSource(this.#input);
    for (let slot = 0; slot < config.slots; slot++) {
      const source = new UserSource<[I]>().setName(`input ${slot}`);
      this.#combiner.sink(slot).connectToSource(source);
      this.#slotSources.push(source);
    }
    this.#buffer.connectToSink(
      new ItemSink<I>((item) => {
        handlers.accepted?.(item);
        this.#slotSources[item.slot]!.push(item);
      }),
    );
    this.#combiner.connectToSink(
      new SetSink<I>((items) => {
        handlers.tuple(items);
      }),
    );
    const drop = handlers.drop;
    this.#buffer.onDropArgs((_slot, _stamp, reason, item, detail) => {
      this.#bufferDropped++;
      drop("buffer", item.slot, item.stamp, item, reason, detail);
    });
    this.#combiner.onDropArgs((slot, stamp, reason, item, detail) => {
      drop("policy", slot, stamp, item, reason, detail);
    });
  }

  /** The combiner's policy. */
  public get policy(): CombinerPolicy<I> {
    return this.#combiner.policy;
  }

  /**
   * Rebuild the policy on `timeBase` (its `zero` changes). Only before the first item: a policy
   * holding messages would report them as `reset` drops.
   */
  public setTimeBase(timeBase: TimeBase): void {
    this.#combiner.setPolicy(createPolicy<I>(this.#config.policy, this.#config.slots, timeBase));
  }

  /** Feed one item (its slot must exist). Results arrive synchronously through the handlers. */
  public push(item: I): void {
    this.#input.push(item);
    if (this.#drainOnPush && this.#buffer.hasSome()) {
      this.#buffer.spinOnce();
    }
  }

  /** Send at most `max` queued items on to the combiner, oldest first; returns how many. */
  public processQueued(max = Infinity): number {
    return this.#buffer.processSome(max);
  }

  /** The buffer's policy, capacity, queue length and drop count. */
  public get buffer(): BufferState {
    return {
      policy: this.#buffer.policy,
      maxQueueSize: this.#buffer.maxQueueSize,
      queued: this.#buffer.size,
      dropped: this.#bufferDropped,
    };
  }
}

/** Hands each item the buffer forwards to a function. */
class ItemSink<I> extends Sink<[I]> {
  readonly #deliver: (item: I) => void;

  public constructor(deliver: (item: I) => void) {
    super();
    this.#deliver = deliver;
  }

  protected override receive(item: I): void {
    this.#deliver(item);
  }
}

/** Hands each set the combiner emits (items in slot order) to a function. */
class SetSink<I> extends Sink<I[]> {
  readonly #deliver: (items: I[]) => void;

  public constructor(deliver: (items: I[]) => void) {
    super();
    this.#deliver = deliver;
  }

  protected override receive(...items: I[]): void {
    this.#deliver(items);
  }
}
