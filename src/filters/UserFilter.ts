import type { Stamp } from "../time";
import { Filter } from "./Filter";
import { dropItemOf } from "./FilterBase";

/** What a `UserFilter`'s processing function calls to emit one output (0..n times per input). */
export type UserFilterCallback<Out extends unknown[]> = (...outs: Out) => void;

/** A `UserFilter`'s processing function: the inputs, then the callback that emits outputs. */
export type UserFilterFunction<In extends unknown[], Out extends unknown[]> = (
  ...args: [...In, UserFilterCallback<Out>]
) => void;

/** Options of a `UserFilter`. */
export interface UserFilterOptions<In extends unknown[]> {
  /** Labels drop events with the inputs' stamp. Default: none (drops carry stamp NaN). */
  stampOf?: (...ins: In) => Stamp;
}

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
export class UserFilter<In extends unknown[], Out extends unknown[]> extends Filter<In, Out> {
  #fn: UserFilterFunction<In, Out> | undefined;
  readonly #stampOf: ((...ins: In) => Stamp) | undefined;
  /** Outputs emitted so far (compared before/after a call to detect "emitted nothing"). */
  #emitted = 0;
  /** Created once: no closure per message. */
  readonly #callback: UserFilterCallback<Out>;

  public constructor(fn?: UserFilterFunction<In, Out>, options: UserFilterOptions<In> = {}) {
    super();
    this.#fn = fn;
    this.#stampOf = options.stampOf;
    this.#callback = (...outs: Out) => {
      this.#emitted++;
      this.sendArray(outs);
    };
  }

  /** Set the processing function (see the class comment). */
  public setProcessingFunction(fn: UserFilterFunction<In, Out>): this {
    this.#fn = fn;
    return this;
  }

  protected override receive(...ins: In): void {
    const fn = this.#fn;
    if (fn == undefined) {
      throw new Error(
        `${this.name}: no processing function set; call setProcessingFunction() before data arrives`,
      );
    }
    const before = this.#emitted;
    fn(...ins, this.#callback);
    if (this.#emitted === before && this.reportsDrops) {
      this.reportDrop(
        0,
        this.#stampOf?.(...ins) ?? NaN,
        dropItemOf(ins),
        "discarded",
        "the filter function emitted nothing for this input",
      );
    }
  }
}
