import { FunctionFilter, type FunctionFilterOptions } from "./FunctionFilter";

/** Options of a `SimpleUserFilter`. */
export type SimpleUserFilterOptions<In extends unknown[]> = FunctionFilterOptions<In>;

/**
 * Passes its input on unchanged when a predicate returns true, and drops it otherwise (fkie's
 * `SimpleUserFilter`, reference §1). A dropped input is reported with reason `discarded`.
 * Receiving data before `setProcessingFunction` throws (fkie throws `bad_function_call`);
 * exceptions from the predicate or from downstream propagate to the sender.
 *
 * ```ts
 * const evenOnly = new SimpleUserFilter<[number]>().setProcessingFunction((n) => n % 2 === 0);
 * ```
 */
export class SimpleUserFilter<In extends unknown[]> extends FunctionFilter<In, In, (...ins: In) => boolean> {
  public constructor(fn?: (...ins: In) => boolean, options: SimpleUserFilterOptions<In> = {}) {
    super(fn, options);
  }

  /** Set the predicate: true passes the input on, false drops it (`discarded`). */
  public override setProcessingFunction(fn: (...ins: In) => boolean): this {
    return super.setProcessingFunction(fn);
  }

  protected override receive(...ins: In): void {
    if (this.processingFunction()(...ins)) {
      this.sendArray(ins);
    } else {
      this.discard(ins, "the filter function returned false");
    }
  }
}
