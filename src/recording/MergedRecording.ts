import { MinHeap } from "./MinHeap";
import { RecordingError, type RecordingDamage } from "./RecordingError";
import type { ReadOptions, RecordTime, RecordedMessage, Recording, RecordingChannel, RecordingInfo } from "./types";

interface Cursor {
  readonly iterator: AsyncIterator<RecordedMessage>;
  readonly order: number;
  current: RecordedMessage;
}

function timeLess(a: RecordTime, b: RecordTime): boolean {
  return a.sec < b.sec || (a.sec === b.sec && a.nsec < b.nsec);
}

function cursorLess(a: Cursor, b: Cursor): boolean {
  const ta = a.current.receiveTime;
  const tb = b.current.receiveTime;
  if (ta.sec !== tb.sec) {
    return ta.sec < tb.sec;
  }
  return ta.nsec !== tb.nsec ? ta.nsec < tb.nsec : a.order < b.order;
}

/**
 * Several recordings read as one (a split rosbag2 bag: `_0` … `_n`): messages in receive-time
 * order, ties in file order (the earlier file first, then each file's own order). A part is
 * started only when the merge reaches its start time, so parts that follow each other in time
 * (how rosbag2 splits) are read one at a time. `info` sums the parts' counts and sizes; a topic's
 * channel is the first part's.
 */
export class MergedRecording implements Recording {
  public readonly info: RecordingInfo;
  readonly #parts: readonly Recording[];
  readonly #names: readonly string[] | undefined;

  /**
   * `parts` in file order; `format` is what the whole is (e.g. "rosbag2"); `names`, one per part,
   * name the file in what a damaged part reports at a byte offset (its offsets are its own). A
   * damage without an offset (SQLite rows, messages of a part) already names its file.
   */
  public constructor(parts: readonly Recording[], format: RecordingInfo["format"], names?: readonly string[]) {
    this.#parts = parts;
    this.#names = names;
    this.info = mergeInfo(parts, format);
  }

  public async *messages(options: ReadOptions = {}): AsyncIterableIterator<RecordedMessage> {
    const parts = this.#parts
      .map((recording, order) => ({ recording, order }))
      .sort((a, b) => {
        const sa = a.recording.info.startTime;
        const sb = b.recording.info.startTime;
        if (sa && sb && (timeLess(sa, sb) || timeLess(sb, sa))) {
          return timeLess(sa, sb) ? -1 : 1;
        }
        return a.order - b.order;
      });
    const sizes = this.#parts.map((p) => p.info.sizeInBytes);
    const readSoFar = sizes.map(() => 0);
    const total = this.info.sizeInBytes;
    // A damaged part is read past as any recording is: its damage is reported (naming its file)
    // and the other parts go on; one error after the last message names every region.
    const damages: RecordingDamage[] = [];
    const partOptions = (order: number): ReadOptions => ({
      topics: options.topics,
      decode: options.decode,
      onDamage: (d) => {
        const name = this.#names?.[order];
        const named: RecordingDamage = name == undefined || d.offset == undefined ? d : { ...d, reason: `${name}: ${d.reason}` };
        damages.push(named);
        options.onDamage?.(named);
      },
      onProgress: options.onProgress
        ? (p) => {
            readSoFar[order] = p.bytesRead;
            const bytesRead = readSoFar.reduce((a, b) => a + b, 0);
            options.onProgress!({ bytesRead, totalBytes: total, fraction: total > 0 ? bytesRead / total : 1 });
          }
        : undefined,
    });
    const heap = new MinHeap<Cursor>(cursorLess);
    const open: AsyncIterator<RecordedMessage>[] = [];
    /** The part's next message; done when it ends, or ends after reading past damage (reported above). */
    const advance = async (iterator: AsyncIterator<RecordedMessage>): Promise<IteratorResult<RecordedMessage>> => {
      try {
        return await iterator.next();
      } catch (err) {
        if (err instanceof RecordingError && err.readPast) {
          return { done: true, value: undefined };
        }
        throw err;
      }
    };
    let next = 0;
    try {
      for (;;) {
        while (next < parts.length) {
          const top = heap.peek();
          const { recording, order } = parts[next]!;
          const start = recording.info.startTime;
          if (top && start && timeLess(top.current.receiveTime, start)) {
            break;
          }
          next += 1;
          const iterator = recording.messages(partOptions(order))[Symbol.asyncIterator]();
          open.push(iterator);
          const first = await advance(iterator);
          if (first.done !== true) {
            heap.push({ iterator, order, current: first.value });
          }
        }
        const cursor = heap.peek();
        if (!cursor) {
          break;
        }
        const message = cursor.current;
        const following = await advance(cursor.iterator);
        if (following.done === true) {
          heap.pop();
        } else {
          cursor.current = following.value;
          heap.updateTop();
        }
        yield message;
      }
    } finally {
      for (const iterator of open) {
        await iterator.return?.();
      }
    }
    if (damages.length > 0) {
      throw RecordingError.afterDamage(damages);
    }
  }
}

function mergeInfo(parts: readonly Recording[], format: RecordingInfo["format"]): RecordingInfo {
  const channels: RecordingChannel[] = [];
  const seen = new Set<string>();
  let counts: Map<string, number> | undefined = new Map();
  const unreadable = new Map<string, string>();
  let start: RecordTime | undefined;
  let end: RecordTime | undefined;
  let indexed = true;
  const problems: string[] = [];
  for (const [i, part] of parts.entries()) {
    const info = part.info;
    for (const c of info.channels) {
      if (!seen.has(c.topic)) {
        seen.add(c.topic);
        channels.push(c);
      }
    }
    if (info.messageCounts && counts) {
      for (const [topic, n] of info.messageCounts) {
        counts.set(topic, (counts.get(topic) ?? 0) + n);
      }
    } else {
      counts = undefined;
    }
    for (const [topic, reason] of info.unreadableTopics ?? []) {
      unreadable.set(topic, reason);
    }
    if (info.startTime && (!start || timeLess(info.startTime, start))) {
      start = info.startTime;
    }
    if (info.endTime && (!end || timeLess(end, info.endTime))) {
      end = info.endTime;
    }
    if (!info.indexed) {
      indexed = false;
      problems.push(`file ${i}: ${info.indexProblem ?? "unindexed"}`);
    }
  }
  return {
    format,
    profile: parts.find((p) => p.info.profile != undefined)?.info.profile,
    publishTimes: parts.every((p) => p.info.publishTimes === true) ? true : parts.every((p) => p.info.publishTimes === false) ? false : undefined,
    channels,
    messageCounts: counts,
    startTime: start,
    endTime: end,
    indexed,
    indexProblem: problems.length > 0 ? problems.join("; ") : undefined,
    sizeInBytes: parts.reduce((n, p) => n + p.info.sizeInBytes, 0),
    unreadableTopics: unreadable,
    notes: parts.flatMap((p) => p.info.notes ?? []),
  };
}
