/**
 * Test and benchmark helpers for decompression bombs: a bag chunk that declares another
 * uncompressed size, an MCAP chunk whose records are replaced by a given compressed blob.
 */
import { bagFieldAt, type BagFixture } from "./bagFixtures";

/** A copy of the bag whose chunk `k` declares `size` uncompressed bytes. */
export function declareChunkSize(bag: BagFixture, k: number, size: number): Uint8Array {
  const bytes = bag.bytes.slice();
  const at = bagFieldAt(bytes, bag.chunks[k]!.offset, "size");
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(at, size, true);
  return bytes;
}

/**
 * A copy of the MCAP whose chunk at `start` has `records` (compressed) of `uncompressedSize`
 * bytes in place of its own; the file is rewritten around it (later offsets move, so the summary
 * no longer matches and the reader scans, which still must refuse the bomb).
 */
export function patchMcapChunk(bytes: Uint8Array, start: number, records: Uint8Array, uncompressedSize: number): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = Number(view.getBigUint64(start + 1, true));
  const compressionLength = view.getUint32(start + 9 + 28, true);
  const head = 9 + 28 + 4 + compressionLength;
  const chunk = new Uint8Array(head + 8 + records.byteLength);
  chunk.set(bytes.subarray(start, start + head), 0);
  const cv = new DataView(chunk.buffer);
  cv.setBigUint64(1, BigInt(chunk.byteLength - 9), true);
  cv.setBigUint64(9 + 16, BigInt(uncompressedSize), true);
  cv.setUint32(9 + 24, 0, true); // no CRC
  cv.setBigUint64(head, BigInt(records.byteLength), true);
  chunk.set(records, head + 8);
  const out = new Uint8Array(bytes.byteLength - (9 + length) + chunk.byteLength);
  out.set(bytes.subarray(0, start), 0);
  out.set(chunk, start);
  out.set(bytes.subarray(start + 9 + length), start + chunk.byteLength);
  return out;
}
