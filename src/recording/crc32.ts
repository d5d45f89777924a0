import { crc32 as portableCrc32 } from "@foxglove/crc";

/** The CRC-32 (IEEE 802.3, as MCAP uses it) of some bytes, as an unsigned 32-bit integer. */
export type Crc32 = (data: Uint8Array) => number;

interface ZlibCrc {
  crc32?: (data: Uint8Array) => number;
}

/**
 * Node's native `zlib.crc32` (Node >= 20.15, reached through `process.getBuiltinModule` so that
 * no bundle for the browser sees a Node import), or undefined where there is none.
 */
function nativeCrc32(): Crc32 | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const zlib = host?.getBuiltinModule?.("node:zlib") as ZlibCrc | undefined;
  const fn = zlib?.crc32;
  return typeof fn === "function" ? (data) => fn(data) : undefined;
}

/**
 * CRC-32 for checking chunks: Node's native one where the host has it (several times faster; a
 * whole recording's chunks are checked, so it is a large part of a read), else the portable one
 * @mcap/core uses (@foxglove/crc). Both give the same value for the same bytes.
 */
export const crc32: Crc32 = nativeCrc32() ?? portableCrc32;
