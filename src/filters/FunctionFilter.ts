import type { Stamp } from "../time";
import { Filter } from "./Filter";
import { dropItemOf } from "./FilterBase";

/** Options of the filters built on a user function (`SimpleUserFilter`, `UserFilter`). */
export interface FunctionFilterOptions<In extends unknown[]> {
  /** Labels drop events with the inputs' stamp. Default: none (drops carry stamp NaN). */
  stampOf?: (...ins: In) => Stamp;
}

/**
 * The part fkie's `SimpleUserFilter` and `UserFilter` share: the user's processing function `F`
 * (settable later; receiving data before it is set throws, as fkie's `bad_function_call`) and the
 * `discarded` drop of an input the function let through to nothing.
 */
export abstract class FunctionFilter<In extends unknown[], Out extends unknown[], F> extends Filter<In, Out> {
  #fn: F | undefined;
  readonly #stampOf: ((...ins: In) => Stamp) | undefined;

  protected constructor(fn: F | undefined, options: FunctionFilterOptions<In>) {
    super();
    this.#fn = fn;
    this.#stampOf = options.stampOf;
  }

  /** Set the processing function (see the class comment). */
  public setProcessingFunction(fn: F): this {
    this.#fn = fn;
    return this;
  }

  /** The processing function; throws naming the filter when none is set yet. */
  protected processingFunction(): F {
    const fn = this.#fn;
    if (fn == undefined) {
      throw new Error(
        `${this.name}: no processing function set; call setProcessingFunction() before data arrives`,
      );
    }
    return fn;
  }

  /** Reports `ins` as a `discarded` drop with `detail` (when anyone listens). */
  protected discard(ins: In, detail: string): void {
    if (this.reportsDrops) {
      this.reportDrop(0, this.#stampOf?.(...ins) ?? NaN, dropItemOf(ins), "discarded", detail);
    }
  }
}
