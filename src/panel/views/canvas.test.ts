import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { packLines } from "./canvas";

/** A phrase: letters only. */
const word = fc.array(fc.constantFrom("a", "b", "c", "d"), { minLength: 1, maxLength: 30 }).map((cs) => cs.join(""));

/** A monospace measure: 6 px a character. */
const mono = (text: string): number => text.length * 6;

describe("packLines", () => {
  it("keeps every phrase once, in order, and no line but a lone phrase is wider than the room", () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 12 }), fc.integer({ min: 1, max: 400 }), (phrases, width) => {
        const lines = packLines(phrases, width, mono, "; ");
        // Phrases have no "; " of their own, so each line splits back into its phrases.
        const perLine = lines.map((line) => line.split("; "));
        expect(perLine.flat()).toEqual(phrases);
        for (const [i, line] of lines.entries()) {
          expect(mono(line) <= width || perLine[i]!.length === 1).toBe(true);
        }
        // Greedy: a line and the next line's first phrase would not have fit together.
        for (let i = 0; i + 1 < lines.length; i++) {
          expect(mono(`${lines[i]!}; ${perLine[i + 1]![0]!}`)).toBeGreaterThan(width);
        }
      }),
    );
  });

  it("puts the 3D view's latest-pose phrases on one line when there is room and on two at 300 px", () => {
    const phrases = ["latest: x 1.01, y 3.43, z 0.74 m", "roll -3.2°, pitch 1.8°, yaw -65.7°", "(612 poses)"];
    expect(packLines(phrases, 800, mono)).toEqual(["latest: x 1.01, y 3.43, z 0.74 m roll -3.2°, pitch 1.8°, yaw -65.7° (612 poses)"]);
    expect(packLines(phrases, 300, mono)).toEqual(["latest: x 1.01, y 3.43, z 0.74 m", "roll -3.2°, pitch 1.8°, yaw -65.7° (612 poses)"]);
  });
});
