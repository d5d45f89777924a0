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
  // The inlining budget of a message's path. TurboFan inlines the path from here to a policy's
  // add (send1, the Combiner input's receive, the stamp conversion, add and what they inline)
  // into the caller's delivery loop only while it fits that loop's budget: 920 bytes of bytecode,
  // a callee counting 1.2 times its own size plus what its separately optimized code inlined.
  // So every function on the path keeps its rare branches out of line; one call left on it costs
  // 5–9 % of a W3 pipeline, more where it passes a stamp (a double argument of a call that is not
  // inlined is boxed, a heap allocation per message). Here: one named parameter and
  // `arguments.length`, not a used rest parameter, which would be allocated for every message;
  // once push is inlined the count is known and the branch that passes `arguments` on is dropped.
  // Tests for an absent value on the path compare strictly (`=== undefined`, `!== null`): a loose
  // `== undefined` also matches the browser's "undetectable" objects, so TurboFan loads the
  // value's map for it, a dependent load per message (W3 pipelines 0.35–0.4 ns, 1.4 %).
  public push(a?: unknown, ..._more: unknown[]): void {
    if (arguments.length === 1) {
      this.send1(a);
    } else {
      // eslint-disable-next-line prefer-rest-params
      this.#pushSeveral(arguments);
    }
  }

  #pushSeveral(all: IArguments): void {
    this.sendArray(Array.prototype.slice.call(all) as Out);
  }

  /** A plain function that pushes into this source (fkie's `src(args...)` call syntax). */
  public asFunction(): (...args: Out) => void {
    return (...args: Out) => {
      this.push(...args);
    };
  }
}
