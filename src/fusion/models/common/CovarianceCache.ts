import { DEFAULT_SYMMETRY_PRECISION, validateCovariance, type MeasurementProblem } from "./measurement";
import { whiten, type Matrix } from "../../core";
import { sameNumbers } from "../../core/sameNumbers";

/** A partial covariance's whitening, as core's `whiten` returns it. */
export interface Whitening {
  readonly sqrtInformation: Matrix;
  readonly covariance: Matrix;
}

/** What is known of one remembered covariance. */
interface Entry {
  readonly rows: number;
  readonly cols: number;
  readonly data: Float64Array;
  /** Validation verdicts by symmetry precision. */
  readonly verdicts: Map<number, MeasurementProblem | undefined>;
  readonly whitenings: { readonly indices: readonly number[]; readonly n: number; readonly value: Whitening }[];
}

/**
 * What a sensor model derives from a partial measurement covariance, its validation verdict and
 * its whitening, remembered for the last few covariances: sensors report the same covariance in
 * message after message, so this spares one symmetry test, one Cholesky test, one inverse and one
 * Cholesky factorization per constraint. Constraints never change their matrices, so the ones
 * built from the same covariance share one `sqrtInformation` and one `covariance`.
 *
 * Guarantees: `problem` returns exactly `validateCovariance(covariance, precision)`, and `whiten`
 * exactly what `whiten(covariance, indices, n, what)` returns (throwing its RangeError when it
 * throws), either computed now or remembered from a covariance of the same shape equal in every
 * entry (Object.is: to the bit, ±0 told apart). The arguments are not kept (copies are).
 */
export class CovarianceCache {
  readonly #size: number = 0;
  readonly #entries: Entry[] = [];
  #next = 0;

  /** Remembers the last `size` (≥ 1) distinct covariances. */
  public constructor(size = 8) {
    this.#size = Math.max(1, size);
  }

  /** `validateCovariance(covariance, precision)` (see the class comment). */
  public problem(covariance: Matrix, precision = DEFAULT_SYMMETRY_PRECISION): MeasurementProblem | undefined {
    const entry = this.#entry(covariance);
    if (entry.verdicts.has(precision)) {
      return entry.verdicts.get(precision);
    }
    const verdict = validateCovariance(covariance, precision);
    entry.verdicts.set(precision, verdict);
    return verdict;
  }

  /** `whiten(covariance, indices, n, what)` (see the class comment). */
  public whiten(covariance: Matrix, indices: readonly number[], n: number, what: string): Whitening {
    const entry = this.#entry(covariance);
    for (const w of entry.whitenings) {
      if (w.n === n && sameNumbers(w.indices, indices)) {
        return w.value;
      }
    }
    const value = whiten(covariance, indices, n, what);
    entry.whitenings.push({ indices: [...indices], n, value });
    return value;
  }

  /** The remembered entry of this covariance, made (replacing the oldest) when there is none. */
  #entry(covariance: Matrix): Entry {
    for (const e of this.#entries) {
      if (e.rows === covariance.rows && e.cols === covariance.cols && sameNumbers(e.data, covariance.data)) {
        return e;
      }
    }
    const entry: Entry = {
      rows: covariance.rows,
      cols: covariance.cols,
      data: Float64Array.from(covariance.data),
      verdicts: new Map(),
      whitenings: [],
    };
    this.#entries[this.#next] = entry;
    this.#next = (this.#next + 1) % this.#size;
    return entry;
  }
}
