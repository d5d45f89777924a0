import { RecentByNumbers } from "./RecentByNumbers";
import { Whitener } from "./Whitener";

/** The whiteners built last (sensors with a fixed covariance repeat one). */
const recent = new RecentByNumbers<Whitener>(8);

/**
 * `new Whitener(a, n)`, or a Whitener built earlier from an `a` equal to this one in every entry
 * (`Object.is`: to the bit) with the same `n`: a sensor with a fixed covariance gives every
 * constraint the same square-root information, and a Whitener is never changed after it is built
 * (its `a` is its own copy, only read), so the cost functions of those constraints share one and
 * compute exactly what a Whitener of their own would.
 */
export function whitenerFor(a: ArrayLike<number>, n: number): Whitener {
  const found = recent.find(a, n);
  if (found != undefined) {
    return found;
  }
  const built = new Whitener(a, n);
  return recent.remember(built.a, n, built);
}
