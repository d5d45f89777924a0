import { errorText } from "./RecordingError";
import type { Decompressors } from "./decompress";

const ZSTD_MAGIC = 0xfd2fb528;

/**
 * The decompressed size a zstd frame declares in its header (RFC 8878 §3.1.1.1.4), or undefined
 * when the frame does not declare it or is not a zstd frame. rosbag2's zstd compressor always
 * declares it (it compresses whole buffers with ZSTD_compress).
 */
export function zstdFrameContentSize(data: Uint8Array): number | undefined {
  if (data.byteLength < 5) {
    return undefined;
  }
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (view.getUint32(0, true) !== ZSTD_MAGIC) {
    return undefined;
  }
  const descriptor = data[4]!;
  const fcsFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictIdFlag = descriptor & 3;
  const fcsBytes = [singleSegment === 1 ? 1 : 0, 2, 4, 8][fcsFlag]!;
  if (fcsBytes === 0) {
    return undefined;
  }
  const at = 5 + (singleSegment === 1 ? 0 : 1) + [0, 1, 2, 4][dictIdFlag]!;
  if (at + fcsBytes > data.byteLength) {
    return undefined;
  }
  switch (fcsBytes) {
    case 1:
      return data[at]!;
    case 2:
      return view.getUint16(at, true) + 256;
    case 4:
      return view.getUint32(at, true);
    default:
      return view.getUint32(at, true) + view.getUint32(at + 4, true) * 2 ** 32;
  }
}

/**
 * Decompresses one zstd frame (a rosbag2 per-message or per-file compressed payload) with the
 * shared WebAssembly decompressors. Throws an Error that starts with `what` and says what is
 * wrong: not zstd, no declared size, or corrupt data.
 */
export function decompressZstd(data: Uint8Array, decompressors: Decompressors, what: string): Uint8Array {
  const size = zstdFrameContentSize(data);
  if (size == undefined) {
    throw new Error(`${what} is not a zstd frame with a declared size (metadata.yaml says it is zstd-compressed)`);
  }
  const zstd = decompressors.zstd;
  if (zstd == undefined) {
    throw new Error(`${what} cannot be read: no zstd decompressor is available`);
  }
  try {
    return zstd(data, size);
  } catch (err) {
    throw new Error(`${what} does not decompress (corrupt zstd data): ${errorText(err)}`);
  }
}
