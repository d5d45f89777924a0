import type { Connection } from "./Connection";
import type { SinkLike } from "./FilterBase";
import { Sink } from "./Sink";
import { Source } from "./Source";

/** One output of a Divider (what `divider.source(i)` returns). */
class DividerOutput<O> extends Source<[O]> {
  readonly #owner: () => string;
  readonly #index: number = 0;

  public constructor(owner: () => string, index: number) {
    super();
    this.#owner = owner;
    this.#index = index;
  }

  public override get name(): string {
    return `${this.#owner()}.source(${this.#index})`;
  }

  public forward(value: O): void {
    this.send1(value);
  }
}

/**
 * One N-ary sink split into N unary sources (fkie's `Divider`, reference §1): input element i
 * goes to the sinks of `source(i)`, for i = 0..N-1 in that order, synchronously. Drops nothing;
 * an exception from a sink stops the delivery of the remaining elements and propagates.
 *
 * ```ts
 * const div = new Divider<[number, string]>(2);
 * div.connectToSinks(numberSink, stringSink);
 * ```
 */
export class Divider<In extends unknown[]> extends Sink<In> {
  readonly #outputs: DividerOutput<unknown>[] = [];

  /** `arity` is the number of input elements (the length of `In`). */
  public constructor(arity: In["length"]) {
    super();
    if (!Number.isInteger(arity) || arity < 1) {
      throw new RangeError(`Divider: arity must be an integer >= 1, got ${String(arity)}`);
    }
    for (let i = 0; i < arity; i++) {
      this.#outputs.push(new DividerOutput(() => this.name, i));
    }
  }

  /** The source that emits input element `index`. Throws RangeError if there is none. */
  public source<I extends number>(index: I): Source<[In[I]]> {
    const out = this.#outputs[index];
    if (out == undefined) {
      throw new RangeError(
        `Divider.source(${index}): no such output; outputs are 0..${this.#outputs.length - 1}`,
      );
    }
    return out;
  }

  /** Connect `sinks[i]` to `source(i)`, one sink per element, in order. */
  public connectToSinks(...sinks: { [K in keyof In]: SinkLike<[In[K]]> }): Connection[] {
    if (sinks.length !== this.#outputs.length) {
      throw new RangeError(
        `Divider.connectToSinks: got ${sinks.length} sinks for ${this.#outputs.length} outputs`,
      );
    }
    return this.#outputs.map((out, i) => out.connectToSink(sinks[i]!));
  }

  /** Disconnect every output from its sinks. */
  public disconnectFromAllSinks(): void {
    for (const out of this.#outputs) {
      out.disconnectFromAllSinks();
    }
  }

  /** Disconnect both sides. */
  public override disconnect(): void {
    super.disconnect();
    this.disconnectFromAllSinks();
  }

  protected override receive(...ins: In): void {
    if (ins.length !== this.#outputs.length) {
      throw new RangeError(
        `${this.name}: received ${ins.length} values, but it divides ${this.#outputs.length}`,
      );
    }
    for (let i = 0; i < ins.length; i++) {
      this.#outputs[i]!.forward(ins[i]);
    }
  }
}
