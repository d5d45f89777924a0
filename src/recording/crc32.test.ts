import { crc32 as portableCrc32 } from "@foxglove/crc";
import { describe, expect, it } from "vitest";

import { crc32 } from "./crc32";
import { mulberry32 } from "../testing/random";

describe("crc32", () => {
  it("gives the CRC-32 check value of the standard test string", () => {
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
  });

  it("agrees with @foxglove/crc (what @mcap/core checks chunks with) on any bytes, views included", () => {
    const rng = mulberry32(3);
    const bytes = new Uint8Array(70_000).map(() => Math.floor(rng() * 256));
    for (const [start, end] of [
      [0, 0],
      [0, 1],
      [3, 4099],
      [17, 70_000],
    ] as const) {
      const view = bytes.subarray(start, end);
      expect(crc32(view)).toBe(portableCrc32(view));
    }
  });
});
