import fc from "fast-check";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";

import { sha1 } from "./sha1";

describe("sha1", () => {
  it("gives the FIPS 180-4 test vectors", () => {
    const hex = (s: string): string => Buffer.from(sha1(new TextEncoder().encode(s))).toString("hex");
    expect(hex("")).toBe("da39a3ee5e6b4b0d3255bfef95601890afd80709");
    expect(hex("abc")).toBe("a9993e364706816aba3e25717850c26c9cd0d89d");
    expect(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
    );
  });

  it("matches Node's crypto SHA-1 for any message, across block boundaries, hashing a prefix", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(8), (bytes, extra) => {
        const padded = new Uint8Array(bytes.length + extra).fill(0xa5);
        padded.set(bytes);
        const out = new Uint8Array(20);
        expect(sha1(padded, bytes.length, out)).toBe(out);
        expect(Buffer.from(out).toString("hex")).toBe(createHash("sha1").update(bytes).digest("hex"));
      }),
      { numRuns: 2000 },
    );
  });
});
