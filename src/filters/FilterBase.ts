import type { Stamp } from "../time";
import { Connection } from "./Connection";
import type { DropEvent, DropHandler, DropListener, DropReason } from "./DropReason";

/**
 * What a drop event of a filter with inputs `In` carries as `item`: the argument itself for a
 * single-input filter, the argument tuple otherwise.
 */
export type DropItem<In extends unknown[]> = In extends [infer A] ? A : In;

/**
 * Thrown when data reaches a sink that is still handling an earlier call on the same stack: the
 * filter graph has a cycle. fkie_message_filters throws `logic_error("recursive invocation
 * detected")` in the same situation (reference §1, Sink).
 */
export class FilterCycleError extends Error {
  /** Name of the filter that was reached a second time. */
  public readonly filter: string;

  public constructor(filter: string) {
    super(
      `recursive invocation detected: a cycle in the filter graph at ${filter} ` +
        `(data sent by ${filter} came back to it; break the loop or put a Buffer in Queue mode into it)`,
    );
    this.name = "FilterCycleError";
    this.filter = filter;
  }
}

/**
 * Anything that receives `In`: a `Sink<In>` or a `Filter<In, …>` (both are FilterBase instances,
 * which is what the connection code relies on).
 */
export type SinkLike<In extends unknown[]> = FilterBase<In, unknown[], unknown> & {
  connectToSource(source: SourceLike<In>): Connection;
};

/** Anything that sends `Out`: a `Source<Out>`, a `Filter<…, Out>` or a Combiner. */
export type SourceLike<Out extends unknown[]> = FilterBase<unknown[], Out, unknown> & {
  connectToSink(sink: SinkLike<Out>): Connection;
};

// Internally every node is handled through this loose view; the public classes keep the types.
type AnyNode = FilterBase<unknown[], unknown[], unknown>;

/**
 * The root of every filter (fkie's `FilterBase`): the connection lists of both sides, the
 * re-entry guard, synchronous delivery and the shared drop-reporting mechanism.
 *
 * Use `Source`, `Sink` or `Filter` as base classes; this class only exists so that a `Filter`
 * is both a `Source` and a `Sink` for the type checker.
 *
 * Guarantees:
 * - `send` delivers to the connected sinks synchronously, in connection order; an exception
 *   from a sink propagates to the caller of `send` (the remaining sinks are not called).
 * - A sink reached again while it is still handling a call throws `FilterCycleError` instead of
 *   recursing (the guard is a boolean per sink: JavaScript has one thread per realm).
 * - Each call of `reportDrop` reaches every drop listener once, in registration order (the
 *   positional `onDropArgs` handlers first, then the `onDrop` listeners). Without listeners it
 *   costs one check and allocates nothing; with only positional handlers it allocates nothing.
 * - Connection lists are copy-on-write, so connecting or disconnecting from inside a callback is
 *   safe; a sink disconnected during a `send` is skipped if it had not been reached yet.
 */
export abstract class FilterBase<In extends unknown[], Out extends unknown[], D> {
  #name: string | undefined;
  /** Downstream sinks, parallel to `#sinkConnections` (the hot path reads only this one). */
  // Fresh (not shared frozen) empty arrays keep the hot loops' property accesses monomorphic.
  #sinks: readonly AnyNode[] = [];
  /** `#sinks[0]` when it is the only sink, else undefined: send1's one load for the usual graph. */
  #soleSink: AnyNode | undefined = undefined;
  #sinkConnections: readonly Connection[] = [];
  #sourceConnections: readonly Connection[] = [];
  #dropListeners: readonly DropListener[] = [];
  #dropHandlers: readonly DropHandler[] = [];
  /** The only drop observer when it is a positional handler, else undefined (one load per drop). */
  #soleDropHandler: DropHandler | undefined = undefined;
  /** `#dropListeners.length + #dropHandlers.length`: the one check of the no-listener fast path. */
  #dropObservers = 0;
  /**
   * Re-entry guard: true while `receive` runs. Every delivery clears it on return and in a catch
   * that rethrows, not in a `finally`: TurboFan's finally saves and restores the pending message
   * and dispatches on a completion token on every delivery (W3 pipelines 1.7–3 %).
   */
  #busy = false;

  /** The filter's name in error messages: set with `setName`, else the class name. */
  public get name(): string {
    return this.#name ?? this.constructor.name;
  }

  /** Name this filter in error messages (e.g. after the topic it handles). */
  public setName(name: string): this {
    this.#name = name;
    return this;
  }

  /**
   * Clear internal state (queues, held messages) and keep the connections. Held messages are
   * reported as drops with reason `reset`. Does nothing by default.
   */
  public reset(): void {
    // stateless by default
  }

  /** Disconnect from every connected source and sink. Never throws. */
  public disconnect(): void {
    this.detachSinks();
    this.detachSources();
  }

  /**
   * Listen to this filter's drops. Every message the filter drops or skips is reported once, with
   * a reason from the shared vocabulary (`DropReason`). Listeners must not throw: an exception
   * propagates to whoever fed the filter. Reporting never changes what the filter emits.
   */
  public onDrop(listener: DropListener<D>): Connection {
    const l = listener as DropListener;
    this.#dropListeners = [...this.#dropListeners, l];
    this.#countDropObservers(1);
    return new Connection(() => {
      const i = this.#dropListeners.indexOf(l);
      if (i >= 0) {
        this.#dropListeners = removeAt(this.#dropListeners, i);
        this.#countDropObservers(-1);
      }
    });
  }

  /**
   * Like `onDrop`, with the drop's fields passed as arguments instead of one event object, so a
   * drop costs no allocation (for hot consumers: counters, the pipeline's statistics). Same
   * guarantees: each drop once, in registration order; must not throw.
   */
  public onDropArgs(handler: DropHandler<D>): Connection {
    const h = handler as DropHandler;
    this.#dropHandlers = [...this.#dropHandlers, h];
    this.#countDropObservers(1);
    return new Connection(() => {
      const i = this.#dropHandlers.indexOf(h);
      if (i >= 0) {
        this.#dropHandlers = removeAt(this.#dropHandlers, i);
        this.#countDropObservers(-1);
      }
    });
  }

  /**
   * Handle one input. Called by connected sources with the re-entry guard set; implementations
   * update their state before sending, so that an exception from downstream leaves them
   * consistent. The default throws: a filter without inputs (a pure Source) is never called.
   */
  protected receive(..._ins: In): void {
    throw new Error(`${this.name} has no inputs, or does not implement receive()`);
  }

  /** Whether anyone listens to drops (lets a filter skip building a drop's `item` or `detail`). */
  protected get reportsDrops(): boolean {
    return this.#dropObservers !== 0;
  }

  /** Report one dropped message to every drop listener (see `onDrop`). */
  protected reportDrop(
    slot: number,
    stamp: Stamp,
    item: D,
    reason: DropReason,
    detail?: string,
  ): void {
    if (this.#dropObservers === 0) {
      return;
    }
    // The usual observer is one counter (the pipeline's statistics): one load instead of the loop
    // (4–5 % of a W3 pipeline, with its 0.5 drops per message).
    const sole = this.#soleDropHandler;
    // eslint-disable-next-line @foxglove/strict-equality -- one compare, see UserSource.push
    if (sole !== undefined) {
      sole(slot, stamp, reason, item, detail);
      return;
    }
    // An index loop, not for-of: the iterator protocol's bytecode made this too large to inline
    // where it matters (a policy's drop loop), and a non-inlined call boxes `stamp`. The arrays
    // are copy-on-write, so the loop sees the handlers registered when it started, as for-of did.
    const handlers = this.#dropHandlers;
    // eslint-disable-next-line @typescript-eslint/prefer-for-of -- see above
    for (let i = 0; i < handlers.length; i++) {
      handlers[i]!(slot, stamp, reason, item, detail);
    }
    if (this.#dropListeners.length !== 0) {
      this.#notifyDropListeners(slot, stamp, item, reason, detail);
    }
  }

  // The event-object path, out of reportDrop so that the handler path stays small enough to inline.
  #notifyDropListeners(
    slot: number,
    stamp: Stamp,
    item: D,
    reason: DropReason,
    detail: string | undefined,
  ): void {
    const event: DropEvent = { slot, stamp, reason, item, detail };
    for (const listener of this.#dropListeners) {
      listener(event);
    }
  }

  /** Keeps `#dropObservers` and `#soleDropHandler` in step with the two observer lists. */
  #countDropObservers(change: number): void {
    this.#dropObservers += change;
    this.#soleDropHandler =
      this.#dropObservers === 1 && this.#dropHandlers.length === 1
        ? this.#dropHandlers[0]
        : undefined;
    this.soleDropHandlerChanged(this.#soleDropHandler);
  }

  /**
   * Called whenever a drop observer is added or removed, with the only observer when it is a
   * positional handler (`onDropArgs`), else undefined: for a filter whose drops arrive through a
   * path of its own (a Combiner's policy host), which may then call that handler directly, as
   * `reportDrop` would. Does nothing by default.
   */
  protected soleDropHandlerChanged(_sole: DropHandler | undefined): void {
    // no path of its own by default
  }

  /** Pass data to all connected sinks, synchronously and in connection order. */
  protected send(...outs: Out): void {
    this.sendArray(outs);
  }

  /**
   * `send` for exactly one output value, without building an argument array (the hot path of
   * unary filters and sources). Only for filters whose `Out` has one element.
   */
  // A single sink (a source feeding one Combiner slot, the usual graph) is served without the
  // loop, which lives in #send1Each: send1 is then small enough for TurboFan to inline into the
  // caller's delivery loop, one call per message fewer (2–5 % of a W3 pipeline). That sink is
  // kept in a field of its own: two dependent loads fewer per message (another 5–8 %). The guard
  // is #deliver1's, written out: calling a static private method costs a class brand check, 25
  // bytes of bytecode against the delivery loop's inlining budget (see UserSource.push).
  protected send1(out: Out[0]): void {
    const sink = this.#soleSink;
    // eslint-disable-next-line @foxglove/strict-equality -- one compare, see UserSource.push
    if (sink === undefined) {
      this.#send1Each(out);
      return;
    }
    if (sink.#busy) {
      cycleAt(sink);
    }
    sink.#busy = true;
    try {
      sink.receive(out);
    } catch (error) {
      sink.#busy = false;
      throw error;
    }
    sink.#busy = false;
  }

  #send1Each(out: Out[0]): void {
    const sinks = this.#sinks;
    for (let i = 0; i < sinks.length; i++) {
      const sink = sinks[i]!;
      // Skipped when disconnected by an earlier sink of this very send.
      if (i === 0 || sinks === this.#sinks || this.#sinks.includes(sink)) {
        FilterBase.#deliver1(sink, out);
      }
    }
  }

  /** `sink.receive(out)` under the sink's re-entry guard (a FilterCycleError when it is set). */
  static #deliver1(sink: AnyNode, out: unknown): void {
    if (sink.#busy) {
      cycleAt(sink);
    }
    sink.#busy = true;
    try {
      sink.receive(out);
    } catch (error) {
      sink.#busy = false;
      throw error;
    }
    sink.#busy = false;
  }

  /**
   * `send` with the outputs in an array (which the sinks do not keep). Arities up to 4 are
   * passed without spreading.
   */
  protected sendArray(outs: Out): void {
    const sinks = this.#sinks;
    for (let i = 0; i < sinks.length; i++) {
      const sink = sinks[i]!;
      if (i !== 0 && sinks !== this.#sinks && !this.#sinks.includes(sink)) {
        continue;
      }
      if (sink.#busy) {
        cycleAt(sink);
      }
      sink.#busy = true;
      try {
        switch (outs.length) {
          case 1:
            sink.receive(outs[0]);
            break;
          case 2:
            sink.receive(outs[0], outs[1]);
            break;
          case 3:
            sink.receive(outs[0], outs[1], outs[2]);
            break;
          case 4:
            sink.receive(outs[0], outs[1], outs[2], outs[3]);
            break;
          default:
            sink.receive(...outs);
        }
      } catch (error) {
        sink.#busy = false;
        throw error;
      }
      sink.#busy = false;
    }
  }

  /** Connect `sink` downstream of this filter (the body of `connectToSink`). */
  protected attachSink(sink: FilterBase<Out, unknown[], unknown>): Connection {
    const target = sink as unknown as AnyNode;
    const connection: Connection = new Connection(() => {
      const i = this.#sinkConnections.indexOf(connection);
      if (i >= 0) {
        this.#sinkConnections = removeAt(this.#sinkConnections, i);
        this.#setSinks(removeAt(this.#sinks, i));
      }
      const j = target.#sourceConnections.indexOf(connection);
      if (j >= 0) {
        target.#sourceConnections = removeAt(target.#sourceConnections, j);
      }
    });
    this.#setSinks([...this.#sinks, target]);
    this.#sinkConnections = [...this.#sinkConnections, connection];
    target.#sourceConnections = [...target.#sourceConnections, connection];
    return connection;
  }

  /** Sets `#sinks` and `#soleSink` together. */
  #setSinks(sinks: readonly AnyNode[]): void {
    this.#sinks = sinks;
    this.#soleSink = sinks.length === 1 ? sinks[0] : undefined;
  }

  /** Connect this filter downstream of `source` (the body of `connectToSource`). */
  protected attachSource(source: FilterBase<unknown[], In, unknown>): Connection {
    return (source as unknown as AnyNode).attachSink(this);
  }

  /** Disconnect every sink (the body of `disconnectFromAllSinks`). */
  protected detachSinks(): void {
    for (const c of this.#sinkConnections) {
      c.disconnect();
    }
  }

  /** Disconnect every source (the body of `disconnectFromAllSources`). */
  protected detachSources(): void {
    for (const c of this.#sourceConnections) {
      c.disconnect();
    }
  }
}

// Kept out of the delivery loops so that they stay small enough for the optimizer to inline.
function cycleAt(sink: { readonly name: string }): never {
  throw new FilterCycleError(sink.name);
}

/** The `item` of a drop event for the inputs `ins` (see `DropItem`). */
export function dropItemOf<In extends unknown[]>(ins: In): DropItem<In> {
  return (ins.length === 1 ? ins[0] : ins) as DropItem<In>;
}

function removeAt<T>(list: readonly T[], index: number): readonly T[] {
  const copy = list.slice();
  copy.splice(index, 1);
  return copy;
}
