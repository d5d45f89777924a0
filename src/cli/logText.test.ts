import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { escapeControlCharacters, terminalText } from "./logText";

/** Independent inverse of the escaping, for the round-trip property. */
function unescape(text: string): string {
  return text.replace(/\\(\\|n|r|t|x[0-9a-f]{2}|u\{[0-9a-f]+\})/g, (_, e: string) => {
    if (e === "\\") {
      return "\\";
    }
    if (e === "n") {
      return "\n";
    }
    if (e === "r") {
      return "\r";
    }
    if (e === "t") {
      return "\t";
    }
    return String.fromCharCode(parseInt(e.startsWith("x") ? e.slice(1) : e.slice(2, -1), 16));
  });
}

describe("escapeControlCharacters", () => {
  it("escapes newlines, ANSI escapes, DEL, C1 and bidi overrides; leaves printable text", () => {
    expect(escapeControlCharacters("/evil\n\u001b[31mred\u007f\u009b\u202e")).toBe("/evil\\n\\x1b[31mred\\x7f\\x9b\\u{202e}");
    expect(escapeControlCharacters("/imu/data ü 漢 ✓")).toBe("/imu/data ü 漢 ✓");
    expect(escapeControlCharacters("a\\nb")).toBe("a\\\\nb");
  });

  it("never lets a control character through and loses nothing (round trip)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const out = escapeControlCharacters(s);
        // eslint-disable-next-line no-control-regex
        expect(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(out)).toBe(false);
        expect(unescape(out)).toBe(s);
      }),
    );
  });
});

describe("terminalText", () => {
  it("makes control characters visible but keeps line breaks and backslashes", () => {
    expect(terminalText("a\n/x\u0000\u001b[2J\u202e \\d\tb")).toBe("a\n/x\\x00\\x1b[2J\\u{202e} \\d\\tb");
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const out = terminalText(s);
        // eslint-disable-next-line no-control-regex
        expect(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(out)).toBe(false);
        expect(out.split("\n").length).toBe(s.split("\n").length);
        // Text without controls passes unchanged.
        // eslint-disable-next-line no-control-regex
        const printable = s.replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, "");
        expect(terminalText(printable)).toBe(printable);
      }),
    );
  });
});
