/**
 * Works ahead of an in-order chunk reader: while the caller uses chunk k, chunks k+1 … k+n are
 * prepared (read, and whatever `prepare` does: decompressing, checking) and chunk k+n+1 read, so
 * that the source's I/O and other threads' work overlap the caller's. `read` gives a chunk's
 * bytes, `prepare` turns them into what the caller uses; n is `preparedAhead` (default 1: one
 * other thread at work).
 *
 * Guarantees: `take(chunk)` settles as `prepare(chunk, await read(chunk))` would (the same value or
 * the same error), whether or not the chunk was worked on ahead; at most `preparedAhead` chunks
 * are prepared and one more read ahead of the one taken; work done ahead for a chunk that is not
 * taken in the order announced is dropped, and its failure is never reported.
 */
export class ChunkPrefetch<C, P> {
  readonly #read: (chunk: C) => Promise<Uint8Array>;
  readonly #prepare: (chunk: C, bytes: Uint8Array) => Promise<P>;
  readonly #preparedAhead: number;
  /** The chunks prepared ahead, in the order they were announced. */
  #prepared: { readonly chunk: C; readonly value: Promise<P> }[] = [];
  #readAhead: { readonly chunk: C; readonly bytes: Promise<Uint8Array> } | undefined;

  public constructor(
    read: (chunk: C) => Promise<Uint8Array>,
    prepare: (chunk: C, bytes: Uint8Array) => Promise<P>,
    preparedAhead = 1,
  ) {
    if (!Number.isSafeInteger(preparedAhead) || preparedAhead < 1) {
      throw new RangeError(`a ChunkPrefetch prepares at least one chunk ahead, not ${preparedAhead}`);
    }
    this.#read = read;
    this.#prepare = prepare;
    this.#preparedAhead = preparedAhead;
  }

  /** How many chunks after the one taken `take` works on: the `upcoming` it uses. */
  public get lookahead(): number {
    return this.#preparedAhead + 1;
  }

  /**
   * What `chunk` is prepared into. `upcoming` are the chunks to be taken after it, in order (the
   * first `lookahead` are worked on now).
   */
  public async take(chunk: C, upcoming: readonly C[]): Promise<P> {
    const head = this.#prepared[0];
    let keeping = head?.chunk === chunk;
    const value = keeping ? head!.value : this.#start(chunk);
    const before = this.#prepared.slice(1);
    const prepared: { readonly chunk: C; readonly value: Promise<P> }[] = [];
    for (const [k, next] of upcoming.slice(0, this.#preparedAhead).entries()) {
      // Work started for the same chunk in the same place is kept; from the first difference
      // on, the order changed and the rest is started afresh.
      const old = keeping ? before[k] : undefined;
      if (old?.chunk === next) {
        prepared.push(old);
        continue;
      }
      keeping = false;
      const ahead = this.#start(next);
      observe(ahead);
      prepared.push({ chunk: next, value: ahead });
    }
    this.#prepared = prepared;
    const afterPrepared = upcoming[this.#preparedAhead];
    if (afterPrepared == undefined) {
      this.#readAhead = undefined;
    } else if (this.#readAhead?.chunk !== afterPrepared) {
      const bytes = this.#readNow(afterPrepared);
      observe(bytes);
      this.#readAhead = { chunk: afterPrepared, bytes };
    }
    return await value;
  }

  async #start(chunk: C): Promise<P> {
    const early = this.#readAhead?.chunk === chunk ? this.#readAhead.bytes : undefined;
    if (early) {
      this.#readAhead = undefined;
    }
    const bytes = await (early ?? this.#readNow(chunk));
    return await this.#prepare(chunk, bytes);
  }

  /** A read whose synchronous throw, too, becomes a rejection. */
  async #readNow(chunk: C): Promise<Uint8Array> {
    return await this.#read(chunk);
  }
}

/**
 * Marks `p`'s failure as seen, so that work done ahead and never asked for is no unhandled
 * rejection; whoever awaits `p` still receives the failure.
 */
function observe(p: Promise<unknown>): void {
  p.catch(() => undefined);
}
