import type { Stamp } from "../time";
import { Filter } from "./Filter";
import { dropItemOf } from "./FilterBase";

/** Options of a `SimpleUserFilter`. */
export interface SimpleUserFilterOptions<In extends unknown[]> {
  /** Labels drop events with the inputs' stamp. Default: none (drops carry stamp NaN). */
  stampOf?: (...ins: In) => Stamp;
}

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
export class SimpleUserFilter<In extends unknown[]> extends Filter<In, In> {
  #fn: ((...ins: In) => boolean) | undefined;
  readonly #stampOf: ((...ins: In) => Stamp) | undefined;

  public constructor(fn?: (...ins: In) => boolean, options: SimpleUserFilterOptions<In> = {}) {
    super();
    this.#fn = fn;
    this.#stampOf = options.stampOf;
  }

  /** Set the predicate: true passes the input on, false drops it (`discarded`). */
  public setProcessingFunction(fn: (...ins: In) => boolean): this {
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
    if (fn(...ins)) {
      this.sendArray(ins);
    } else if (this.reportsDrops) {
      this.reportDrop(
        0,
        this.#stampOf?.(...ins) ?? NaN,
        dropItemOf(ins),
        "discarded",
        "the filter function returned false",
      );
    }
  }
}
