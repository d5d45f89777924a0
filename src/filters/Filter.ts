import type { Connection } from "./Connection";
import { FilterBase, type DropItem, type SinkLike, type SourceLike } from "./FilterBase";

/**
 * Both a `Sink<In>` and a `Source<Out>` (fkie's `Filter<IO<In...>, IO<Out...>>`, reference §1):
 * subclasses override `receive(...ins)` and call `send(...outs)` / `send1(out)` from it.
 * `disconnect()` cuts both sides; `reset()` clears state and keeps the connections.
 * `D` is the item type of its drop events.
 *
 * ```ts
 * class Doubler extends Filter<[number], [number]> {
 *   protected override receive(x: number): void { this.send1(2 * x); }
 * }
 * ```
 */
export abstract class Filter<
  In extends unknown[],
  Out extends unknown[],
  D = DropItem<In>,
> extends FilterBase<In, Out, D> {
  /** Connect a sink downstream (see `Source.connectToSink`). */
  public connectToSink(sink: SinkLike<Out>): Connection {
    return this.attachSink(sink);
  }

  /** Connect this filter downstream of `source` (see `Sink.connectToSource`). */
  public connectToSource(source: SourceLike<In>): Connection {
    return this.attachSource(source);
  }

  /** Disconnect every sink. */
  public disconnectFromAllSinks(): void {
    this.detachSinks();
  }

  /** Disconnect from every source. */
  public disconnectFromAllSources(): void {
    this.detachSources();
  }
}
