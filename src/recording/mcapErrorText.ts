import { reasonOf } from "./RecordingError";
import { mcapRecordName, type OutsideRange, type TimeRange } from "./mcapChunk";
import { timeText } from "./recordedMessage";

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

/**
 * Why the record where a chunk index points is not read as a chunk: another record (opcode `op`)
 * is there, so the chunk's messages are lost.
 */
export function notAChunkReason(op: number | undefined): string {
  const name = op == undefined ? undefined : mcapRecordName(op);
  const found =
    op == undefined
      ? "no record is there"
      : name == undefined
        ? `the record there has opcode 0x${op.toString(16).padStart(2, "0")}, which no MCAP record has`
        : `${/^[AEIOU]/.test(name) ? "an" : "a"} ${name} record is there`;
  return `the chunk index points to a Chunk record here, but ${found}`;
}

/**
 * Why a chunk that reads is damage all the same: its message indexes count `missing` more
 * messages on the topics read than it holds (in the style of the bag reader's chunk-info check).
 */
export function fewerMessagesReason(missing: number): string {
  return `the chunk's message indexes count ${missing} more message${missing === 1 ? "" : "s"} on the topics read than the chunk holds: its records are cut short or damaged`;
}

/**
 * Why a chunk is damage when some of its messages' log times lie outside the `range` that `by`
 * states for it (its chunk index in an indexed read, its own header in a scan), and what became
 * of those messages (in the style of the bag reader's chunk-info time check).
 */
export function outsideRangeReason(by: "the chunk index" | "the chunk record", range: TimeRange, outside: OutsideRange): string {
  const { count, first, early, late } = outside;
  const one = count === 1;
  const delivered = count - early - late;
  const fates: string[] = [];
  if (early > 0) {
    fates.push(`${one ? "it is" : `${early} are`} earlier than messages already delivered and ${were(early)} skipped (delivering ${early === 1 ? "it" : "them"} would break log-time order)`);
  }
  if (late > 0) {
    fates.push(`${one ? "it is" : `${late} are`} later than the chunk's end and ${were(late)} skipped (holding the chunk until then would pass the memory bound)`);
  }
  if (delivered > 0) {
    fates.push(fates.length > 0 ? `the other ${delivered} ${were(delivered)} delivered in log-time order` : `${one ? "it was" : "they were"} delivered in log-time order`);
  }
  const where = one ? `1 of its messages lies outside that range (at ${timeText(first)})` : `${count} of its messages lie outside that range (the first at ${timeText(first)})`;
  const suspect = by === "the chunk index" ? "the index" : "the chunk's header";
  return `${by} says the chunk spans log times ${timeText(range.start)} to ${timeText(range.end)}, but ${where}: ${suspect} or ${one ? "its log time is" : "their log times are"} damaged; ${fates.join("; ")}`;
}

function were(n: number): string {
  return n === 1 ? "was" : "were";
}

/**
 * Why chunks written without message indexes are damage as a whole: the Statistics record counts
 * `missing` more messages on the topics read than the read accounted for.
 */
export function statisticsShortfallReason(missing: number): string {
  return (
    `the Statistics record counts ${missing} more message${missing === 1 ? "" : "s"} on the topics read than the chunks hold: ` +
    "the records of a chunk written without message indexes (this is the first; nothing counts their messages one by one) are cut short or damaged"
  );
}
