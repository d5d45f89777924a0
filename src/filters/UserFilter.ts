import { FunctionFilter, type FunctionFilterOptions } from "./FunctionFilter";

/** What a `UserFilter`'s processing function calls to emit one output (0..n times per input). */
export type UserFilterCallback<Out extends unknown[]> = (...outs: Out) => void;

/** A `UserFilter`'s processing function: the inputs, then the callback that emits outputs. */
export type UserFilterFunction<In extends unknown[], Out extends unknown[]> = (
  ...args: [...In, UserFilterCallback<Out>]
) => void;

/** Options of a `UserFilter`. */
export type UserFilterOptions<In extends unknown[]> = FunctionFilterOptions<In>;

/**
 * Turns each input into zero, one or several outputs through a user function (fkie's
 * `UserFilter`, reference §1). The function receives the inputs and a callback; each call of the
 * callback sends one output downstream, synchronously. An input for which the function emitted
 * nothing (while it ran) is reported as a drop with reason `discarded`. Receiving data before
 * `setProcessingFunction` throws; exceptions from the function or downstream propagate.
 *
 * ```ts
 * const toDouble = new UserFilter<[number], [number]>().setProcessingFunction((i, emit) => {
 *   if (i === 42) emit(3.14);
 * });
 * ```
 */
export class UserFilter<In extends unknown[], Out extends unknown[]> extends FunctionFilter<
  In,
  Out,
  UserFilterFunction<In, Out>
> {
  /** Outputs emitted so far (compared before/after a call to detect "emitted nothing"). */
  #emitted = 0;
  /** Created once: no closure per message. */
  readonly #callback: UserFilterCallback<Out>;

  public constructor(fn?: UserFilterFunction<In, Out>, options: UserFilterOptions<In> = {}) {
    super(fn, options);
    this.#callback = (...outs: Out) => {
      this.#emitted++;
      this.sendArray(outs);
    };
  }

  protected override receive(...ins: In): void {
    const fn = this.processingFunction();
    const before = this.#emitted;
    fn(...ins, this.#callback);
    if (this.#emitted === before) {
      this.discard(ins, "the filter function emitted nothing for this input");
    }
  }
}
