import type { McapTypes } from "@mcap/core";
import { loadDecompressHandlers } from "@mcap/support";

/** Decompresses `data` into exactly `size` bytes; throws when the data is malformed. */
export type Decompressor = (data: Uint8Array, size: number) => Uint8Array;

/** Decompressors by the compression names of ROS 1 bags and MCAP: "bz2", "lz4", "zstd". */
export type Decompressors = Readonly<Record<string, Decompressor>>;

let loaded: Promise<Decompressors> | undefined;

/**
 * The WebAssembly decompressors (@foxglove/wasm-bz2, -lz4, -zstd through @mcap/support), loaded
 * once per realm. Works in Node and in a Web Worker.
 */
export async function loadDecompressors(): Promise<Decompressors> {
  loaded ??= loadDecompressHandlers().then((handlers) => {
    const out: Record<string, Decompressor> = {};
    for (const [name, fn] of Object.entries(handlers)) {
      out[name] = (data, size) => fn(data, BigInt(size));
    }
    return out;
  });
  return await loaded;
}

/** The same decompressors in @mcap/core's shape (size as bigint). */
export function toMcapHandlers(decompressors: Decompressors): McapTypes.DecompressHandlers {
  const out: McapTypes.DecompressHandlers = {};
  for (const [name, fn] of Object.entries(decompressors)) {
    out[name] = (data, size) => fn(data, Number(size));
  }
  return out;
}
