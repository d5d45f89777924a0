import type { Connection } from "./Connection";
import { FilterBase, type SinkLike } from "./FilterBase";

/**
 * A data provider with outputs `Out` (fkie's `Source<Outputs...>`, reference §1). Subclasses
 * call the protected `send(...outs)` (or `send1(out)` for one output); connected sinks receive
 * the data synchronously, in connection order, and their exceptions propagate to the sender.
 * `D` is the item type of this source's drop events (most sources drop nothing).
 *
 * ```ts
 * class Ticker extends Source<[number]> {
 *   tick(n: number): void { this.send1(n); }
 * }
 * ```
 */
export abstract class Source<Out extends unknown[], D = never> extends FilterBase<never, Out, D> {
  /**
   * Connect a sink downstream; it receives everything this source sends from now on. A sink may be
   * connected to several sources, and a source to several sinks (delivered in connection order).
   */
  public connectToSink(sink: SinkLike<Out>): Connection {
    return this.attachSink(sink);
  }

  /** Disconnect every sink; `send` becomes a no-op. */
  public disconnectFromAllSinks(): void {
    this.detachSinks();
  }
}
