import { diagonalSqrtInformation } from "./diagonalSqrtInformation";
import { diagonal, type Matrix } from "../core";
import { sameNumbers } from "../core/sameNumbers";

/** A diagonal covariance and its whitening (undefined when not positive definite). */
export interface DiagonalNoise {
  readonly covariance: Matrix;
  readonly sqrtInformation: Matrix | undefined;
}

/**
 * The matrices of the last few diagonal process-noise covariances `diag(q)`, so that segments
 * with the same noise (sensors at a fixed rate give the same dt over and over) share one
 * covariance and one whitening matrix instead of building both per segment. Constraints never
 * change their matrices, so sharing them is safe.
 *
 * Guarantees: `get(q)` returns `diagonal(q)` and `diagonalSqrtInformation(q)`, or a remembered pair
 * built from a `q` equal to this one in every entry (Object.is: to the bit, ±0 told apart).
 */
export class DiagonalNoiseCache {
  readonly #size: number = 0;
  readonly #keys: Float64Array[] = [];
  readonly #values: DiagonalNoise[] = [];
  #next = 0;

  /** Remembers the last `size` (≥ 1) distinct noises. */
  public constructor(size = 4) {
    this.#size = Math.max(1, size);
  }

  /** The matrices of `diag(q)` (see the class comment); `q` is not kept. */
  public get(q: ArrayLike<number>): DiagonalNoise {
    for (let e = 0; e < this.#keys.length; e++) {
      if (sameNumbers(this.#keys[e]!, q)) {
        return this.#values[e]!;
      }
    }
    const value: DiagonalNoise = { covariance: diagonal(q), sqrtInformation: diagonalSqrtInformation(q) };
    const slot = this.#next;
    this.#keys[slot] = Float64Array.from(q);
    this.#values[slot] = value;
    this.#next = (slot + 1) % this.#size;
    return value;
  }
}
