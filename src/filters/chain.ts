import type { Connection } from "./Connection";
import type { Filter } from "./Filter";
import type { SinkLike, SourceLike } from "./FilterBase";

/**
 * Connect each adjacent pair: `chain(a, b, c)` is `a.connectToSink(b); b.connectToSink(c)`
 * (fkie's `chain`, reference §1). Returns the connections in pair order. Throws TypeError if an
 * argument in the middle cannot send or one after the first cannot receive.
 *
 * ```ts
 * chain(source, buffer, filter, sink);
 * ```
 */
export function chain<A extends unknown[]>(a: SourceLike<A>, b: SinkLike<A>): Connection[];
export function chain<A extends unknown[], B extends unknown[]>(
  a: SourceLike<A>,
  b: Filter<A, B, unknown>,
  c: SinkLike<B>,
): Connection[];
export function chain<A extends unknown[], B extends unknown[], C extends unknown[]>(
  a: SourceLike<A>,
  b: Filter<A, B, unknown>,
  c: Filter<B, C, unknown>,
  d: SinkLike<C>,
): Connection[];
export function chain<
  A extends unknown[],
  B extends unknown[],
  C extends unknown[],
  D extends unknown[],
>(
  a: SourceLike<A>,
  b: Filter<A, B, unknown>,
  c: Filter<B, C, unknown>,
  d: Filter<C, D, unknown>,
  e: SinkLike<D>,
): Connection[];
export function chain<
  A extends unknown[],
  B extends unknown[],
  C extends unknown[],
  D extends unknown[],
  E extends unknown[],
>(
  a: SourceLike<A>,
  b: Filter<A, B, unknown>,
  c: Filter<B, C, unknown>,
  d: Filter<C, D, unknown>,
  e: Filter<D, E, unknown>,
  f: SinkLike<E>,
): Connection[];
export function chain(...filters: unknown[]): Connection[] {
  if (filters.length < 2) {
    throw new TypeError(`chain: needs at least 2 filters, got ${filters.length}`);
  }
  const connections: Connection[] = [];
  for (let i = 0; i + 1 < filters.length; i++) {
    const from = filters[i] as Partial<SourceLike<unknown[]>> | undefined;
    const to = filters[i + 1] as Partial<SinkLike<unknown[]>> | undefined;
    if (typeof from?.connectToSink !== "function") {
      throw new TypeError(`chain: argument ${i} is not a Source or Filter (it cannot send)`);
    }
    if (typeof to?.connectToSource !== "function") {
      throw new TypeError(`chain: argument ${i + 1} is not a Sink or Filter (it cannot receive)`);
    }
    connections.push(from.connectToSink(to as SinkLike<unknown[]>));
  }
  return connections;
}
