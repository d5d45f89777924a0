import type { Connection } from "./Connection";
import { FilterBase, type DropItem, type SourceLike } from "./FilterBase";

/**
 * A data consumer with inputs `In` (fkie's `Sink<Inputs...>`, reference §1). Subclasses override
 * the protected `receive(...ins)`. A sink reached again while its `receive` is still running (a
 * cycle in the graph) throws `FilterCycleError`. `D` is the item type of its drop events.
 *
 * ```ts
 * class Printer extends Sink<[string]> {
 *   protected override receive(line: string): void { console.log(line); }
 * }
 * ```
 */
export abstract class Sink<In extends unknown[], D = DropItem<In>> extends FilterBase<
  In,
  never,
  D
> {
  /** Connect this sink downstream of `source` (same as `source.connectToSink(this)`). */
  public connectToSource(source: SourceLike<In>): Connection {
    return this.attachSource(source);
  }

  /** Disconnect from every source; `receive` is not called any more. */
  public disconnectFromAllSources(): void {
    this.detachSources();
  }
}
