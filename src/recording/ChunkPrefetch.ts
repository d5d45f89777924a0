/**
 * Works ahead of an in-order chunk reader: while the caller uses chunk k, chunk k+1 is prepared
 * (read, and whatever `prepare` does: decompressing, checking) and chunk k+2 read, so that the
 * source's I/O and another thread's work overlap the caller's. `read` gives a chunk's bytes,
 * `prepare` turns them into what the caller uses.
 *
 * Guarantees: `take(chunk)` settles as `prepare(chunk, await read(chunk))` would (the same value or
 * the same error), whether or not the chunk was worked on ahead; at most one chunk is prepared and
 * one more read ahead of the one taken; work done ahead for a chunk that is not taken next is
 * dropped, and its failure is never reported.
 */
export class ChunkPrefetch<C, P> {
  readonly #read: (chunk: C) => Promise<Uint8Array>;
  readonly #prepare: (chunk: C, bytes: Uint8Array) => Promise<P>;
  #prepared: { readonly chunk: C; readonly value: Promise<P> } | undefined;
  #read2: { readonly chunk: C; readonly bytes: Promise<Uint8Array> } | undefined;

  public constructor(read: (chunk: C) => Promise<Uint8Array>, prepare: (chunk: C, bytes: Uint8Array) => Promise<P>) {
    this.#read = read;
    this.#prepare = prepare;
  }

  /**
   * What `chunk` is prepared into. `upcoming` are the chunks to be taken after it, in order (the
   * first two are worked on now).
   */
  public async take(chunk: C, upcoming: readonly C[]): Promise<P> {
    const value = this.#prepared?.chunk === chunk ? this.#prepared.value : this.#start(chunk);
    this.#prepared = undefined;
    const [next, afterNext] = upcoming;
    if (next != undefined) {
      const ahead = this.#start(next);
      observe(ahead);
      this.#prepared = { chunk: next, value: ahead };
    }
    this.#read2 = undefined;
    if (afterNext != undefined) {
      const bytes = this.#readNow(afterNext);
      observe(bytes);
      this.#read2 = { chunk: afterNext, bytes };
    }
    return await value;
  }

  async #start(chunk: C): Promise<P> {
    const early = this.#read2?.chunk === chunk ? this.#read2.bytes : undefined;
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
