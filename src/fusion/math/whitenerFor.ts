import { Whitener } from "./Whitener";
import { sameNumbers } from "../core/sameNumbers";

/** How many distinct whiteners are remembered (sensors with a fixed covariance repeat one). */
const REMEMBERED = 8;
const recent: Whitener[] = [];
let next = 0;

/**
 * `new Whitener(a, n)`, or a Whitener built earlier from an `a` equal to this one in every entry
 * (`Object.is`: to the bit) with the same `n`: a sensor with a fixed covariance gives every
 * constraint the same square-root information, and a Whitener is never changed after it is built
 * (its `a` is its own copy, only read), so the cost functions of those constraints share one and
 * compute exactly what a Whitener of their own would.
 */
export function whitenerFor(a: ArrayLike<number>, n: number): Whitener {
  for (const w of recent) {
    if (w.cols === n && sameNumbers(w.a, a)) {
      return w;
    }
  }
  const built = new Whitener(a, n);
  recent[next] = built;
  next = (next + 1) % REMEMBERED;
  return built;
}
