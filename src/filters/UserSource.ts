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
  public push(...args: Out): void {
    // The unary case skips the argument array (see FilterBase.send1): the common hot path.
    if (args.length === 1) {
      this.send1(args[0]);
    } else {
      this.sendArray(args);
    }
  }

  /** A plain function that pushes into this source (fkie's `src(args...)` call syntax). */
  public asFunction(): (...args: Out) => void {
    return (...args: Out) => {
      this.push(...args);
    };
  }
}
