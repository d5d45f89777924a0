import { Source } from "./Source";

/**
 * A source that you push data into (fkie's callable `UserSource`, reference §1). `push` delivers
 * synchronously to the connected sinks; their exceptions (including `FilterCycleError`)
 * propagate to the caller. Drops nothing.
 *
 * ```ts
 * const src = new UserSource<[Imu]>();
 * src.connectToSink(combiner.sink(0));
 * src.push(imuMessage);
 * ```
 */
export class UserSource<Out extends unknown[]> extends Source<Out> {
  /** Send `args` to every connected sink, in connection order. */
  public push(...args: Out): void;
  // Named parameters and `arguments.length` instead of a used rest parameter: the rest array
  // would be allocated for every message (20 bytes each on W3); `arguments.length` and an unused
  // rest parameter allocate nothing. More than four values (rare) take the `arguments` copy.
  public push(a?: unknown, b?: unknown, c?: unknown, d?: unknown, ..._more: unknown[]): void {
    const n = arguments.length;
    if (n === 1) {
      this.send1(a);
    } else if (n <= 4) {
      this.sendArray((n === 2 ? [a, b] : n === 3 ? [a, b, c] : n === 4 ? [a, b, c, d] : []) as Out);
    } else {
      // eslint-disable-next-line prefer-rest-params
      this.sendArray(Array.prototype.slice.call(arguments) as Out);
    }
  }

  /** A plain function that pushes into this source (fkie's `src(args...)` call syntax). */
  public asFunction(): (...args: Out) => void {
    return (...args: Out) => {
      this.push(...args);
    };
  }
}
