import type { Stamp } from "../time";
import type { Connection } from "./Connection";
import type { DropHandler, DropReason } from "./DropReason";
import type { SourceLike } from "./FilterBase";
import { Sink } from "./Sink";
import { Source } from "./Source";
import type { CombinerPolicy, PolicyHost } from "./policies/CombinerPolicy";

/** Options of a `Combiner` over the slot items `T`. */
export interface CombinerOptions<T extends unknown[]> {
  /**
   * The header stamp of an item arriving on `slot` (relative ns, see `time/TimeBase`), or NaN
   * when the item has no header. Required: policies only ever see stamps.
   */
  stampOf: (item: T[number], slot: number) => Stamp;
  /**
   * The receive (arrival) time of an item on the same time base, for arrival-driven policies
   * and headerless messages. Default: the item's stamp.
   */
  arrivalOf?: (item: T[number], slot: number) => Stamp;
}

/**
 * The sink of one Combiner slot (what `combiner.sink(i)` returns). It holds what every message
 * needs (the policy, the stamp functions) in fields of its own, not behind a shared object: each
 * hop is a load the next message's delivery waits for (2–4 % of a W3 pipeline).
 */
class CombinerInput<I> extends Sink<[I], I> {
  readonly #slot: number = 0;
  /** The Combiner's policy, updated by its `setPolicy`. */
  #policy: CombinerPolicy<I>;
  readonly #stampOf: (item: I, slot: number) => Stamp;
  readonly #arrivalOf: ((item: I, slot: number) => Stamp) | undefined;
  readonly #host: PolicyHost<I>;
  readonly #combinerName: () => string;

  public constructor(
    slot: number,
    policy: CombinerPolicy<I>,
    host: PolicyHost<I>,
    options: CombinerOptions<I[]>,
    combinerName: () => string,
  ) {
    super();
    this.#slot = slot;
    this.#policy = policy;
    this.#stampOf = options.stampOf;
    // undefined, not null, when absent: receive tests it strictly.
    this.#arrivalOf = options.arrivalOf ?? undefined;
    this.#host = host;
    this.#combinerName = combinerName;
  }

  public override get name(): string {
    return `${this.#combinerName()}.sink(${this.#slot})`;
  }

  /** Feeds later messages to `policy` (the Combiner's `setPolicy`). */
  public usePolicy(policy: CombinerPolicy<I>): void {
    this.#policy = policy;
  }

  protected override receive(item: I): void {
    const slot = this.#slot;
    const stamp = this.#stampOf(item, slot);
    // `stamp !== stamp` is Number.isNaN without the call.
    if (stamp !== stamp && this.#droppedHeaderless(item)) {
      return;
    }
    const arrivalOf = this.#arrivalOf;
    // eslint-disable-next-line @foxglove/strict-equality -- one compare, see UserSource.push
    this.#policy.add(slot, stamp, item, arrivalOf === undefined ? stamp : arrivalOf(item, slot));
  }

  /**
   * For an item without a header stamp: drops it as `no-header` (true) unless the policy takes
   * headerless items. Out of receive, whose bytecode counts against the delivery loop's inlining
   * budget (see UserSource.push).
   */
  #droppedHeaderless(item: I): boolean {
    const policy = this.#policy;
    if (policy.acceptsHeaderless) {
      return false;
    }
    const slot = this.#slot;
    this.#host.drop(
      slot,
      NaN,
      item,
      "no-header",
      `${policy.type} needs a header stamp; slot ${slot} received a message without one`,
    );
    return true;
  }
}

/**
 * N unary inputs, one N-ary output (fkie's `Combiner`, reference §1): each input item goes, with
 * its stamp, to a `CombinerPolicy`, which decides which items form a set; every set it emits is
 * sent as the items in slot order.
 *
 * Guarantees:
 * - Synchronous: one input can emit zero, one or several sets before `push` returns.
 * - Headerless items (stamp NaN) go to a policy only if `policy.acceptsHeaderless`; otherwise
 *   they are dropped with reason `no-header`.
 * - Every drop (the policy's and `no-header`) reaches each `onDrop` listener once, with its slot
 *   and stamp; listening never changes what is emitted.
 * - Policies update their state before emitting, so an exception from a downstream sink
 *   propagates to the pusher and leaves the combiner consistent.
 * - `reset()` and `setPolicy()` report the messages the policy held as drops (reason `reset`).
 *
 * ```ts
 * const combiner = new Combiner<[Imu, Odom]>(new ApproximateTime(2), {
 *   stampOf: (msg) => base.fromSecNsec(msg.header.stamp.sec, msg.header.stamp.nsec),
 * });
 * combiner.connectToSources(imuSource, odomSource);
 * combiner.connectToSink(fusion);
 * combiner.onDrop((d) => console.log(d.slot, d.reason));
 * ```
 */
export class Combiner<T extends unknown[]> extends Source<T, T[number]> {
  /**
   * The host a Combiner binds its policy to: sets go to the Combiner's sinks, drops to its
   * listeners. A class, not an object of arrow functions: a policy's call then reaches the
   * Combiner through one field, where an arrow function created per Combiner costs a closure
   * check and context loads on every drop and every set (W3: 0.5 drops and 0.17 sets per message).
   */
  static readonly #Host = class CombinerHost<S extends unknown[]> implements PolicyHost<S[number]> {
    public readonly readsStamps = false;
    /**
     * The Combiner's only drop observer when it is a positional handler (kept up to date by the
     * Combiner), called here without going through the Combiner: two dependent loads fewer per
     * drop. Otherwise undefined, and drops go through `reportDrop`.
     */
    public soleDropHandler: DropHandler | undefined = undefined;
    readonly #combiner: Combiner<S>;

    public constructor(combiner: Combiner<S>) {
      this.#combiner = combiner;
    }

    public emit(items: S[number][]): void {
      this.#combiner.sendArray(items as S);
    }

    public drop(slot: number, stamp: Stamp, item: S[number], reason: DropReason, detail?: string): void {
      const sole = this.soleDropHandler;
      // eslint-disable-next-line @foxglove/strict-equality -- one compare, see UserSource.push
      if (sole !== undefined) {
        sole(slot, stamp, reason, item, detail);
        return;
      }
      this.#combiner.reportDrop(slot, stamp, item, reason, detail);
    }
  };

  #policy: CombinerPolicy<T[number]>;
  readonly #host: PolicyHost<T[number]> & { soleDropHandler: DropHandler | undefined };
  readonly #inputs: CombinerInput<T[number]>[];

  public constructor(policy: CombinerPolicy<T[number]>, options: CombinerOptions<T>) {
    super();
    if (typeof options.stampOf !== "function") {
      throw new TypeError("Combiner: options.stampOf must be a function (item, slot) => Stamp");
    }
    checkSlots(policy);
    const host = new Combiner.#Host<T>(this);
    this.#policy = policy;
    this.#host = host;
    const inputOptions = options as unknown as CombinerOptions<T[number][]>;
    const name = (): string => this.name;
    this.#inputs = [];
    for (let slot = 0; slot < policy.slots; slot++) {
      this.#inputs.push(new CombinerInput(slot, policy, host, inputOptions, name));
    }
    policy.bind(host);
  }

  /** The current policy. */
  public get policy(): CombinerPolicy<T[number]> {
    return this.#policy;
  }

  /** Number of input slots. */
  public get slots(): number {
    return this.#inputs.length;
  }

  /**
   * Replace the policy (same slot count, else RangeError). The old policy is reset first, its
   * held messages reported as drops (`reset`); the new one is bound to this combiner and reset.
   */
  public setPolicy(policy: CombinerPolicy<T[number]>): this {
    checkSlots(policy);
    if (policy.slots !== this.#inputs.length) {
      throw new RangeError(
        `Combiner.setPolicy: the new policy (${policy.type}) has ${policy.slots} slots, ` +
          `but this combiner has ${this.#inputs.length} inputs; create a new Combiner instead`,
      );
    }
    this.#policy.reset(true);
    this.#policy = policy;
    for (const input of this.#inputs) {
      input.usePolicy(policy);
    }
    policy.bind(this.#host);
    policy.reset(true);
    return this;
  }

  /** The sink of input slot `slot` (0-based). Throws RangeError for a slot that does not exist. */
  public sink<I extends number>(slot: I): Sink<[T[I]], T[I]> {
    const input = this.#inputs[slot];
    if (input == undefined) {
      throw new RangeError(
        `Combiner.sink(${slot}): no such input; this combiner has slots 0..${this.#inputs.length - 1}`,
      );
    }
    return input;
  }

  /** Connect `sources[i]` to input slot i; one source per slot, in slot order. */
  public connectToSources(...sources: { [K in keyof T]: SourceLike<[T[K]]> }): Connection[] {
    if (sources.length !== this.#inputs.length) {
      throw new RangeError(
        `Combiner.connectToSources: got ${sources.length} sources for ${this.#inputs.length} inputs`,
      );
    }
    return this.#inputs.map((input, i) =>
      input.connectToSource(sources[i] as SourceLike<[T[number]]>),
    );
  }

  /** Disconnect every input from its sources. */
  public disconnectFromAllSources(): void {
    for (const input of this.#inputs) {
      input.disconnectFromAllSources();
    }
  }

  /** Disconnect both sides: all inputs and all sinks. */
  public override disconnect(): void {
    this.disconnectFromAllSources();
    this.disconnectFromAllSinks();
  }

  protected override soleDropHandlerChanged(sole: DropHandler | undefined): void {
    this.#host.soleDropHandler = sole;
  }

  /** Reset the policy; the messages it held are reported as drops with reason `reset`. */
  public override reset(): void {
    this.#policy.reset(true);
  }
}

function checkSlots(policy: CombinerPolicy<unknown>): void {
  if (!Number.isInteger(policy.slots) || policy.slots < 1) {
    throw new RangeError(
      `Combiner: policy ${policy.type} reports ${String(policy.slots)} slots; need an integer >= 1`,
    );
  }
}
