import { MinHeap } from "./MinHeap";
import type { RecordTime } from "./types";

/** A chunk as an index describes it: where it is and the earliest receive time it holds. */
export interface ChunkRef {
  readonly startTime: RecordTime;
  /** Byte offset of the chunk: its position in the file, which breaks receive-time ties. */
  readonly offset: number;
}

/** Anything with a receive time. */
export interface Timed {
  readonly time: RecordTime;
}

/** How many of the chunks to be loaded next `mergeChunks` tells `load` about, by default. */
export const LOOKAHEAD = 2;

interface Cursor<C, T> {
  readonly chunk: C;
  readonly items: T[];
  next: number;
}

/** Whether receive time `a` is earlier than `b`. */
export function timeLess(a: RecordTime, b: RecordTime): boolean {
  return a.sec < b.sec || (a.sec === b.sec && a.nsec < b.nsec);
}

function timeCompare(a: RecordTime, b: RecordTime): number {
  return a.sec !== b.sec ? a.sec - b.sec : a.nsec - b.nsec;
}

/**
 * Merges the messages of indexed chunks into receive-time order with ties in file order (DESIGN
 * §2, "Recording order"): the chunks are opened in order of start time, each one's messages
 * (`load` returns them in their order in the chunk) are stably sorted by time, and the open chunks
 * are merged by (time, chunk offset). That is exactly a stable sort of the whole file by receive
 * time. A chunk is loaded only when the earliest pending message is not earlier than its start
 * time, so memory holds the chunks that overlap in time (one for a normal recording). `load`
 * handles damage itself (it reports and returns what it could read). Its second argument is the
 * chunks that will be loaded after this one, in order (the next `lookahead`, default `LOOKAHEAD`;
 * fewer at the end), so
 * that `load` can work on them ahead; every chunk is loaded exactly once, in that order.
 */
export async function* mergeChunks<C extends ChunkRef, T extends Timed>(
  chunks: readonly C[],
  load: (chunk: C, upcoming: readonly C[]) => Promise<T[]>,
  lookahead = LOOKAHEAD,
): AsyncIterableIterator<{ readonly item: T; readonly chunk: C }> {
  const ordered = [...chunks].sort((a, b) => {
    const byTime = timeCompare(a.startTime, b.startTime);
    return byTime !== 0 ? byTime : a.offset - b.offset;
  });
  const heap = new MinHeap<Cursor<C, T>>((a, b) => {
    const ta = a.items[a.next]!.time;
    const tb = b.items[b.next]!.time;
    if (ta.sec !== tb.sec) {
      return ta.sec < tb.sec;
    }
    return ta.nsec !== tb.nsec ? ta.nsec < tb.nsec : a.chunk.offset < b.chunk.offset;
  });
  let next = 0;
  for (;;) {
    while (next < ordered.length) {
      const top = heap.peek();
      const chunk = ordered[next]!;
      if (top && timeLess(top.items[top.next]!.time, chunk.startTime)) {
        break;
      }
      next += 1;
      const items = await load(chunk, ordered.slice(next, next + lookahead));
      if (items.length > 0) {
        // Array.prototype.sort is stable: equal times keep their order in the chunk.
        items.sort((a, b) => timeCompare(a.time, b.time));
        heap.push({ chunk, items, next: 0 });
      }
    }
    const cursor = heap.peek();
    if (!cursor) {
      return;
    }
    const item = cursor.items[cursor.next]!;
    cursor.next += 1;
    if (cursor.next === cursor.items.length) {
      heap.pop();
    } else {
      heap.updateTop();
    }
    yield { item, chunk: cursor.chunk };
  }
}

/**
 * The same order for a file read without an index, in one pass and bounded memory: each chunk
 * (in file order, with its byte offset) is stably sorted by time, and `add` returns every held
 * message earlier than the new chunk's first one, merged by (time, chunk offset); `finish`
 * returns the rest. That is the stable sort of the whole file by receive time whenever chunks
 * start in time order (recorders write them so); a chunk that starts earlier than messages
 * already returned has its earlier messages returned late, never lost. Memory holds the chunks
 * whose time ranges overlap the newest one's start.
 */
export class ScanMerge<T extends Timed> {
  readonly #heap = new MinHeap<Cursor<number, T>>((a, b) => {
    const ta = a.items[a.next]!.time;
    const tb = b.items[b.next]!.time;
    if (ta.sec !== tb.sec) {
      return ta.sec < tb.sec;
    }
    return ta.nsec !== tb.nsec ? ta.nsec < tb.nsec : a.chunk < b.chunk;
  });

  /** Adds the messages of the chunk at `offset` (in their file order); returns what may go out now. */
  public add(items: T[], offset: number): { readonly item: T; readonly offset: number }[] {
    if (items.length === 0) {
      return [];
    }
    // Array.prototype.sort is stable: equal times keep their order in the chunk.
    items.sort((a, b) => timeCompare(a.time, b.time));
    const out = this.#until(items[0]!.time);
    this.#heap.push({ chunk: offset, items, next: 0 });
    return out;
  }

  /** Everything still held, in order (after the last chunk). */
  public finish(): { readonly item: T; readonly offset: number }[] {
    return this.#until(undefined);
  }

  #until(start: RecordTime | undefined): { readonly item: T; readonly offset: number }[] {
    const out: { item: T; offset: number }[] = [];
    for (let cursor = this.#heap.peek(); cursor; cursor = this.#heap.peek()) {
      const item = cursor.items[cursor.next]!;
      if (start && !timeLess(item.time, start)) {
        break;
      }
      out.push({ item, offset: cursor.chunk });
      cursor.next += 1;
      if (cursor.next === cursor.items.length) {
        this.#heap.pop();
      } else {
        this.#heap.updateTop();
      }
    }
    return out;
  }
}
