/** The size of a slab: copies are packed into slabs of this many bytes. */
export const SLAB_BYTES = 64 * 1024;

/** Bytes above which a copy gets a buffer of its own instead of a place in a slab. */
export const OWN_BUFFER_ABOVE = 8 * 1024;

/**
 * Copies of messages' serialized bytes, for decoders whose messages keep views of the bytes they
 * were decoded from (arrays of numbers): decoded from a copy, a message held for long keeps only
 * the copy's memory alive, never the chunk, page or read it came from. Small copies are packed
 * into shared slabs, so that a copy costs its bytes rather than an ArrayBuffer of its own (an
 * allocation several times the cost of decoding a small message).
 *
 * Guarantees: a copy holds `data`'s bytes and shares no memory with `data` or with any other
 * copy; it starts `misalign` bytes past a multiple of 8 of its buffer (CDR aligns 8-byte fields
 * from 4 bytes into a message); a copy keeps at most one slab (`SLAB_BYTES`) alive, or, above
 * `OWN_BUFFER_ABOVE` bytes, only a buffer of its own size.
 */
export class MessageSlab {
  #slab = new Uint8Array(0);
  /** Bytes of the current slab given out. */
  #used = 0;

  /** A copy of `data` starting `misalign` (0 or 4) bytes past a multiple of 8. */
  public copy(data: Uint8Array, misalign: 0 | 4 = 0): Uint8Array {
    const length = data.byteLength;
    if (length > OWN_BUFFER_ABOVE) {
      const own = new Uint8Array(new ArrayBuffer(length + misalign), misalign, length);
      own.set(data);
      return own;
    }
    let at = ((this.#used + 7) & ~7) + misalign;
    if (at + length > this.#slab.byteLength) {
      this.#slab = new Uint8Array(SLAB_BYTES);
      at = misalign;
    }
    const copy = this.#slab.subarray(at, at + length);
    copy.set(data);
    this.#used = at + length;
    return copy;
  }
}
