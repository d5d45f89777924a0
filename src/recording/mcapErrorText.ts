import { reasonOf } from "./RecordingError";

/** @mcap/core's words for a defect, and Lockstep's sentence for the same facts. */
const SENTENCES: readonly [RegExp, (...facts: string[]) => string][] = [
  [/^Incorrect summary CRC (\d+) \(expected (\d+)\)/, (actual, declared) => `the summary's CRC-32 is ${actual} but the footer says ${declared}: its bytes are damaged`],
  [/^Incorrect chunk CRC (\d+) \(expected (\d+)\)/, (actual, declared) => `the chunk's CRC-32 is ${actual} but its record says ${declared}: its bytes are damaged`],
  [/^Expected MCAP magic '[^']*', found '([^']*)'/, (found) => `the file does not end with the MCAP magic (its last 8 bytes are ${found})`],
  [/^Unable to read footer from end of file \(offset (\d+)\)/, (at) => `no Footer record is at byte ${at}, before the closing magic`],
  [/^String length (\d+) exceeds bounds of buffer/, (n) => `a text field declares ${n} bytes, more than its record holds`],
  [/^(?:Map|Key-value pairs) length (\d+) exceeds bounds of buffer/, (n) => `a map field declares ${n} bytes, more than its record holds`],
  [/^Record content length (\d+) is too large/, (n) => `a record declares a length of ${n} bytes, more than any file holds`],
  [/^Schema data length (\d+) exceeds bounds of record/, (n) => `a Schema record's data declares ${n} bytes, more than the record holds`],
  [/^Chunk records length exceeds remaining record size/, () => "the chunk's records declare more bytes than its record holds"],
  [/^File is not indexed/, () => "the footer names no summary section"],
  [/^(\d+) bytes remaining in index section/, (n) => `the summary's last ${n} bytes do not form a complete record`],
  [/^(\d+) bytes remaining after parsing (header|footer)/, (n, what) => `the ${what} record is ${n} bytes longer than its fields`],
  [/^Unable to read header at beginning of file; found (\w+)/, (found) => `the file does not start with a Header record (found ${found})`],
];

/**
 * Why an MCAP record, chunk or summary could not be read, as a Lockstep sentence: a thrown
 * RecordingError's own reason, @mcap/core's known reasons reworded with the same numbers (its
 * "[library=…]" and "[no header]" tags dropped), and JavaScript's out-of-bounds errors (fields
 * read past the bytes a length field gave them) named as what they mean in the file.
 */
export function mcapReason(err: unknown): string {
  if (err instanceof RangeError || err instanceof TypeError) {
    return "its fields run past the end of the record (its length field is smaller than they are)";
  }
  const text = reasonOf(err)
    .replace(/ \[library=[^\]]*\]$/, "")
    .replace(/ \[no header\]$/, "");
  for (const [pattern, sentence] of SENTENCES) {
    const match = pattern.exec(text);
    if (match) {
      return sentence(...match.slice(1));
    }
  }
  return text;
}
