/** A CRC-32 computed on another thread, and the memory it was computed over, handed back. */
export interface CrcResult {
  /** The CRC-32 (IEEE 802.3, as MCAP uses it) of the bytes, as an unsigned 32-bit integer. */
  readonly crc: number;
  /** The same bytes, in the same memory, usable again by the caller. */
  readonly bytes: Uint8Array;
}

/** Where a chunk's compressed records lie in the memory handed over, and what they become. */
export interface CompressedRecords {
  /** The compression as recordings name it (MCAP: zstd, lz4; ROS 1 bags: bz2, lz4); one of the worker's `compressions`. */
  readonly compression: string;
  /** Offset of the compressed records in the memory handed over. */
  readonly offset: number;
  /** Their length in bytes. */
  readonly length: number;
  /** The uncompressed size the chunk declares (already checked against the reader's bound). */
  readonly uncompressedSize: number;
}

/**
 * Works on chunks on another thread, so that a reader walks one chunk while the next is
 * decompressed and checked: in a whole-recording read, decompression and the CRC are most of the
 * work, and the reader's own (walking records, decoding, synchronizing) is small beside them.
 *
 * Contract for both methods: the call takes the memory of `bytes`, which must satisfy
 * `canHandOver` (the whole of an ArrayBuffer of its own): from the call on the caller never
 * touches it again, and reads only the bytes the promise gives back. When the promise rejects
 * (the thread could not be started or has died, or the records could not be decompressed to
 * exactly their declared size) the memory is lost, and the caller reads the chunk again and does
 * the work on its own thread, which gives the reason.
 */
export interface ChunkWorker {
  /** How many chunks it works on at once: a reader keeps that many prepared ahead. */
  readonly parallelism: number;
  /** The compressions `decompress` accepts, as recordings name them. */
  readonly compressions: ReadonlySet<string>;
  /** The CRC-32 of `bytes`, and the bytes back. */
  crc32(bytes: Uint8Array): Promise<CrcResult>;
  /**
   * The records `where` describes in `bytes`, decompressed (exactly `uncompressedSize` bytes,
   * the whole of an ArrayBuffer of their own), and their CRC-32.
   */
  decompress(bytes: Uint8Array, where: CompressedRecords): Promise<CrcResult>;
}

/** Whether `bytes` can be handed to a ChunkWorker: all of an ArrayBuffer that nothing else shares. */
export function canHandOver(bytes: Uint8Array): boolean {
  return (
    bytes.buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength
  );
}
