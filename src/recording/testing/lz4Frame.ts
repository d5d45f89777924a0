/**
 * Test helper: wraps bytes in a valid LZ4 frame made of *stored* (uncompressed) blocks, which every
 * LZ4 frame decoder must accept. @foxglove/wasm-lz4 only decompresses, so tests use this to make
 * lz4-chunked files. Written from the LZ4 frame and xxHash32 specifications.
 */
export function lz4StoredFrame(data: Uint8Array): Uint8Array {
  const BLOCK = 4 * 1024 * 1024;
  const blocks = Math.ceil(data.byteLength / BLOCK);
  const out = new Uint8Array(7 + blocks * 4 + data.byteLength + 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x184d2204, true);
  out[4] = 0x60; // version 01, independent blocks, no checksums, no content size
  out[5] = 0x70; // max block size 4 MB
  out[6] = (xxh32(out.subarray(4, 6), 0) >>> 8) & 0xff;
  let at = 7;
  for (let i = 0; i < blocks; i++) {
    const part = data.subarray(i * BLOCK, Math.min(data.byteLength, (i + 1) * BLOCK));
    view.setUint32(at, (part.byteLength | 0x80000000) >>> 0, true);
    out.set(part, at + 4);
    at += 4 + part.byteLength;
  }
  view.setUint32(at, 0, true);
  return out;
}

const P1 = 2654435761;
const P2 = 2246822519;
const P3 = 3266489917;
const P4 = 668265263;
const P5 = 374761393;

function rotl(x: number, r: number): number {
  return ((x << r) | (x >>> (32 - r))) >>> 0;
}

/** xxHash32 (used only for short inputs here, but complete). */
export function xxh32(input: Uint8Array, seed: number): number {
  const len = input.byteLength;
  const view = new DataView(input.buffer, input.byteOffset, len);
  let i = 0;
  let h: number;
  if (len >= 16) {
    let v1 = (seed + P1 + P2) >>> 0;
    let v2 = (seed + P2) >>> 0;
    let v3 = seed >>> 0;
    let v4 = (seed - P1) >>> 0;
    const round = (v: number, x: number): number => Math.imul(rotl((v + Math.imul(x, P2)) >>> 0, 13), P1) >>> 0;
    for (; i + 16 <= len; i += 16) {
      v1 = round(v1, view.getUint32(i, true));
      v2 = round(v2, view.getUint32(i + 4, true));
      v3 = round(v3, view.getUint32(i + 8, true));
      v4 = round(v4, view.getUint32(i + 12, true));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) >>> 0;
  } else {
    h = (seed + P5) >>> 0;
  }
  h = (h + len) >>> 0;
  for (; i + 4 <= len; i += 4) {
    h = Math.imul(rotl((h + Math.imul(view.getUint32(i, true), P3)) >>> 0, 17), P4) >>> 0;
  }
  for (; i < len; i++) {
    h = Math.imul(rotl((h + Math.imul(input[i]!, P5)) >>> 0, 11), P1) >>> 0;
  }
  h ^= h >>> 15;
  h = Math.imul(h, P2) >>> 0;
  h ^= h >>> 13;
  h = Math.imul(h, P3) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}
