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
  // rest parameter allocate nothing. Only one value is sent from here: push's bytecode counts
  // against its caller's TurboFan inlining budget, and at 231 bytes (now 82) it left too little
  // for the delivery loop behind it, which stayed a call per message.
  public push(a?: unknown, b?: unknown, c?: unknown, d?: unknown, ..._more: unknown[]): void {
    if (arguments.length === 1) {
      this.send1(a);
    } else {
      // eslint-disable-next-line prefer-rest-params
      this.#pushSeveral(arguments.length, a, b, c, d, arguments);
    }
  }

  // Two to four values without copying `arguments`; more (rare) take the copy.
  #pushSeveral(n: number, a: unknown, b: unknown, c: unknown, d: unknown, all: IArguments): void {
    if (n <= 4) {
      this.sendArray((n === 2 ? [a, b] : n === 3 ? [a, b, c] : n === 4 ? [a, b, c, d] : []) as Out);
    } else {
      this.sendArray(Array.prototype.slice.call(all) as Out);
    }
  }

  /** A plain function that pushes into this source (fkie's `src(args...)` call syntax). */
  public asFunction(): (...args: Out) => void {
    return (...args: Out) => {
      this.push(...args);
    };
  }
}
