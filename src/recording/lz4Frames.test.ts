import { describe, expect, it } from "vitest";

import { loadDecompressors } from "./decompress";
import { Lz4Frames } from "./lz4Frames";
import { lz4StoredFrame } from "./testing/lz4Frame";

describe("lz4 decompression after a damaged frame", () => {
  it("a frame cut short fails alone: the frames after it decompress (the library's shared context is never left mid-frame)", async () => {
    const { lz4 } = await loadDecompressors();
    const data = new TextEncoder().encode("lockstep ".repeat(1000));
    const frame = lz4StoredFrame(data);
    expect(lz4!(frame, data.byteLength)).toEqual(data);
    expect(() => lz4!(frame.subarray(0, frame.byteLength - 100), data.byteLength)).toThrow();
    expect(lz4!(frame, data.byteLength)).toEqual(data);
    // Garbage where a frame should be, then a good frame again.
    expect(() => lz4!(new Uint8Array(64).fill(7), data.byteLength)).toThrow();
    expect(lz4!(frame, data.byteLength)).toEqual(data);
  });

  it("many damaged frames, past the point where the module is renewed: each fails alone, every good frame decompresses", async () => {
    const frames = await Lz4Frames.load();
    const data = new TextEncoder().encode("x".repeat(70_000)); // two blocks of a 64 KiB frame
    const frame = lz4StoredFrame(data);
    for (let i = 0; i < 12; i++) {
      expect(() => frames.decompress(frame.subarray(0, 1000 + i), data.byteLength)).toThrow(/does not decompress/);
      expect(frames.decompress(frame, data.byteLength)).toEqual(data);
      // Let a renewal that has started finish (or not): either way the next frames decompress.
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
});
