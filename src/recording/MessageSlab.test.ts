import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { MessageSlab, OWN_BUFFER_ABOVE, SLAB_BYTES } from "./MessageSlab";

describe("MessageSlab", () => {
  it("gives copies with the bytes, placed as asked, sharing no memory with the source or each other", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ data: fc.uint8Array({ maxLength: 3 * OWN_BUFFER_ABOVE }), misalign: fc.constantFrom<0 | 4>(0, 4) }), { maxLength: 60 }),
        (messages) => {
          const slab = new MessageSlab();
          const copies = messages.map(({ data, misalign }) => {
            // The source inside a larger buffer, as a message inside a chunk.
            const chunk = new Uint8Array(data.byteLength + 16);
            chunk.set(data, 5);
            const source = chunk.subarray(5, 5 + data.byteLength);
            const copy = slab.copy(source, misalign);
            expect(copy.buffer).not.toBe(chunk.buffer);
            expect(copy).toEqual(data);
            expect(copy.byteOffset % 8).toBe(misalign);
            expect(copy.buffer.byteLength).toBeLessThanOrEqual(Math.max(SLAB_BYTES, data.byteLength + misalign));
            return copy;
          });
          // Copies in one buffer never overlap.
          for (let i = 0; i < copies.length; i++) {
            for (let j = i + 1; j < copies.length; j++) {
              const a = copies[i]!;
              const b = copies[j]!;
              if (a.buffer === b.buffer && a.byteLength > 0 && b.byteLength > 0) {
                expect(a.byteOffset + a.byteLength <= b.byteOffset || b.byteOffset + b.byteLength <= a.byteOffset).toBe(true);
              }
            }
          }
          copies.forEach((copy, i) => {
            expect(copy).toEqual(messages[i]!.data);
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("packs small copies into one slab, and gives a large one a buffer of its own", () => {
    const slab = new MessageSlab();
    const a = slab.copy(new Uint8Array(300));
    const b = slab.copy(new Uint8Array(300), 4);
    expect(b.buffer).toBe(a.buffer);
    expect(b.byteOffset).toBe(304 + 4);
    const large = slab.copy(new Uint8Array(OWN_BUFFER_ABOVE + 1));
    expect(large.buffer).not.toBe(a.buffer);
    expect(large.buffer.byteLength).toBe(OWN_BUFFER_ABOVE + 1);
  });
});
