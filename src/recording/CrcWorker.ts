/** A CRC-32 computed on another thread, and the memory it was computed over, handed back. */
export interface CrcResult {
  /** The CRC-32 (IEEE 802.3, as MCAP uses it) of the bytes, as an unsigned 32-bit integer. */
  readonly crc: number;
  /** The same bytes, in the same memory, usable again by the caller. */
  readonly bytes: Uint8Array;
}

/**
 * Computes CRC-32s on another thread, so that a reader checks one chunk while it decompresses the
 * next (the check is the largest cost of a whole-recording read after decompression itself).
 *
 * Contract: `crc32(bytes)` takes the memory of `bytes`, which must satisfy `canHandOver` (the
 * whole of an ArrayBuffer of its own): from the call until the promise settles the caller must not
 * touch it, and afterwards it reads the returned `bytes`, never the argument. When the promise
 * rejects (the thread could not be started or has died) the memory is lost, and the caller reads
 * its bytes again and checks them on its own thread.
 */
export interface CrcWorker {
  crc32(bytes: Uint8Array): Promise<CrcResult>;
}

/** Whether `bytes` can be handed to a CrcWorker: all of an ArrayBuffer that nothing else shares. */
export function canHandOver(bytes: Uint8Array): boolean {
  return (
    bytes.buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength
  );
}
