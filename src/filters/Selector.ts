import { Filter } from "./Filter";

/** The output tuple of a Selector picking the indices `I` from the inputs `In`. */
export type Selected<In extends unknown[], I extends readonly number[]> = {
  -readonly [K in keyof I]: In[I[K]];
};

/**
 * Reorders or picks arguments by index (fkie's `Selector`, reference §1): the output is
 * `indices.map((i) => ins[i])`; indices may repeat and come in any order. Drops nothing;
 * exceptions from downstream propagate. An index outside the received arguments throws a
 * RangeError naming it.
 *
 * ```ts
 * const second = new Selector<[number, string, boolean], [1]>([1]); // outputs the string
 * ```
 */
export class Selector<In extends unknown[], const I extends readonly number[]> extends Filter<
  In,
  Selected<In, I> & unknown[]
> {
  readonly #indices: readonly number[];

  public constructor(indices: I) {
    super();
    for (const i of indices) {
      if (!Number.isInteger(i) || i < 0) {
        throw new RangeError(`Selector: index ${String(i)} is not a non-negative integer`);
      }
    }
    this.#indices = [...indices];
  }

  /** The selected indices, in output order. */
  public get indices(): readonly number[] {
    return this.#indices;
  }

  protected override receive(...ins: In): void {
    const indices = this.#indices;
    const out: unknown[] = new Array<unknown>(indices.length);
    for (let k = 0; k < indices.length; k++) {
      const i = indices[k]!;
      if (i >= ins.length) {
        throw new RangeError(
          `${this.name}: index ${i} is out of range; it received ${ins.length} arguments`,
        );
      }
      out[k] = ins[i];
    }
    this.sendArray(out as Selected<In, I> & unknown[]);
  }
}
