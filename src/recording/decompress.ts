import type { McapTypes } from "@mcap/core";
import { loadDecompressHandlers } from "@mcap/support";

import { Lz4Frames } from "./lz4Frames";

/** Decompresses `data` into exactly `size` bytes; throws when the data is malformed. */
export type Decompressor = (data: Uint8Array, size: number) => Uint8Array;

/** Decompressors by the compression names of ROS 1 bags and MCAP: "bz2", "lz4", "zstd". */
export type Decompressors = Readonly<Record<string, Decompressor>>;

/**
 * Default bound on one chunk's uncompressed size: 64 MiB. Real recorders write chunks of a few
 * MiB (rosbag 768 KiB, MCAP 4–8 MiB); a larger declared size is a damaged header or a
 * decompression bomb. While a chunk is decompressed it is held two to three times (the
 * WebAssembly decompressor's heap, which grows by doubling and never shrinks, and the copy out of
 * it), so the bound keeps a reader's peak memory under about 400 MB whatever the file holds.
 */
export const DEFAULT_MAX_CHUNK_BYTES = 64 * 1024 * 1024;

/** Options for opening a recording. */
export interface OpenOptions {
  /**
   * The most bytes a reader holds for one chunk or record, default `DEFAULT_MAX_CHUNK_BYTES`.
   * Two sizes are checked against it before anything is read or allocated: a chunk's declared
   * (and actual) uncompressed size, and the bytes a record occupies in the file (a ROS 1 bag
   * record's data, an MCAP record's length, prefix included: for a chunk, its compressed bytes),
   * whatever the record. Every read whose length a file gives is bounded by it, summaries and
   * indexes included. A chunk or record over the limit is damage at its byte offset, with what the
   * index says it held, and the read goes on past it; an index or summary over it is not used,
   * and the file is read sequentially.
   */
  readonly maxChunkBytes?: number;
}

let loaded: Promise<Decompressors> | undefined;

/** A buffer's bytes as a plain Uint8Array over the same memory (a Buffer's `slice` would not copy). */
function plain(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

async function loadUnbounded(): Promise<Decompressors> {
  loaded ??= Promise.all([loadDecompressHandlers(), Lz4Frames.load(), import("@foxglove/wasm-zstd")]).then(
    ([handlers, lz4, zstd]) => {
      const out: Record<string, Decompressor> = {};
      for (const [name, fn] of Object.entries(handlers)) {
        out[name] = (data, size) => fn(data, BigInt(size));
      }
      // @mcap/support's zstd handler copies the fresh buffer the library returns once more (a
      // whole recording's chunks pass through here); it has loaded the module by now. Its lz4
      // handler keeps one context for good, which a damaged frame leaves unusable (Lz4Frames).
      const decompressZstd = zstd.decompress;
      out.lz4 = (data, size) => lz4.decompress(data, size);
      out.zstd = (data, size) => plain(decompressZstd(data, size));
      return out;
    },
  );
  return await loaded;
}

/**
 * The WebAssembly decompressors (@foxglove/wasm-bz2, -lz4, -zstd, loaded through @mcap/support;
 * lz4 and zstd called directly, without the handlers' extra copy), loaded once per realm, each
 * bounded by `maxChunkBytes`: a declared size above the bound throws before the decompressor
 * allocates its output, and an output whose size differs from the declared one throws (the
 * WebAssembly decompressors write into a buffer of the declared size, so the actual size can
 * never exceed it). Works in Node and in a Web Worker.
 */
export async function loadDecompressors(options: OpenOptions = {}): Promise<Decompressors> {
  const limit = options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES;
  const base = await loadUnbounded();
  const out: Record<string, Decompressor> = {};
  for (const [name, fn] of Object.entries(base)) {
    out[name] = (data, size) => {
      checkChunkSize(size, limit);
      const result = fn(data, size);
      if (result.byteLength !== size) {
        throw new Error(`${name} decompression gave ${result.byteLength} bytes where the chunk declares ${size}`);
      }
      return result;
    };
  }
  return out;
}

/**
 * Throws when a chunk's declared uncompressed `size` is not a byte count or exceeds `limit`,
 * saying how to raise the limit.
 */
export function checkChunkSize(size: number, limit: number): void {
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new Error(`the chunk declares an impossible uncompressed size (${size})`);
  }
  if (size > limit) {
    throw new Error(
      `the chunk declares ${size} uncompressed bytes, more than the limit of ${limit} ` +
        `(a damaged header or a decompression bomb; raise the limit with --max-chunk-size if the recording is genuine)`,
    );
  }
}

/**
 * A record or section was not read because it is larger than the read limit: the file may be
 * intact (an unusually large index or summary), so a reader that can do without it (by reading
 * sequentially) does not count this as damage.
 */
export class ReadLimitError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = "ReadLimitError";
  }
}

/**
 * Throws ReadLimitError when a record or section of `size` stored bytes (what reading it would
 * load) exceeds `limit`, before it is read: a sentence naming `what` it is ("the chunk record
 * here") and the sizes (a bigint exactly as the file gives it), why a file may hold that (a
 * damaged length, or an unusually large `kind`) and how to raise the limit.
 */
export function checkStoredSize(what: string, kind: string, size: number | bigint, limit: number): void {
  if (size > limit) {
    throw new ReadLimitError(
      `${what} holds ${size} bytes, more than the limit of ${limit} ` +
        `(a damaged length or an unusually large ${kind}; raise the limit with --max-chunk-size if the recording is genuine)`,
    );
  }
}

/** The same decompressors in @mcap/core's shape (size as bigint). */
export function toMcapHandlers(decompressors: Decompressors): McapTypes.DecompressHandlers {
  const out: McapTypes.DecompressHandlers = {};
  for (const [name, fn] of Object.entries(decompressors)) {
    out[name] = (data, size) => fn(data, Number(size));
  }
  return out;
}
