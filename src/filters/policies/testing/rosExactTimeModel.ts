// Test support for ros/exact-time (not re-exported): ROS's algorithm as a plain model.

/** One message added to the model: its slot and stamp (its item is `m<k>`, k counting adds). */
export interface ModelAdd {
  readonly slot: number;
  readonly stamp: number;
}

/** What the model reports, in order: an emitted set, a dropped message, a dropped partial tuple. */
export type ModelEvent =
  | { kind: "emit"; stamps: number[]; items: string[] }
  | { kind: "drop"; slot: number; stamp: number; item: string; reason: string }
  | { kind: "partial"; stamp: number; items: (string | undefined)[]; reason: string };

/** Adds made from inside callbacks: after the event with a global index in `at`, the next of `adds`. */
export interface ModelNesting {
  readonly adds: readonly ModelAdd[];
  readonly at: ReadonlySet<number>;
}

/**
 * ROS 2 ExactTime (reference ros-message-filters.md §2.2) as a plain model: tuples in a Map keyed
 * by stamp, sorted afresh whenever order matters. Per add: store (a replaced message is a
 * `duplicate-stamp` drop, reported first); a complete tuple is emitted and it and every older
 * tuple are erased; then the oldest tuples beyond `queueSize` are erased; erased tuples are
 * reported after the emission, oldest first, each message in slot order, then the partial tuple.
 * An add updates the tuples before it reports anything, so a nested add (see `nesting`) runs
 * right after the event that triggers it, before the rest of its caller's events.
 */
export function exactTimeModel(
  slots: number,
  queueSize: number,
  adds: readonly ModelAdd[],
  nesting: ModelNesting = { adds: [], at: new Set() },
): ModelEvent[] {
  const tuples = new Map<number, (string | undefined)[]>();
  const out: ModelEvent[] = [];
  let nextNested = 0;
  let nextItem = 0;
  const process = ({ slot, stamp }: ModelAdd): void => {
    const item = `m${nextItem++}`;
    let t = tuples.get(stamp);
    if (t == undefined) {
      t = new Array<string | undefined>(slots).fill(undefined);
      tuples.set(stamp, t);
    }
    const replaced = t[slot];
    t[slot] = item;
    const events: ModelEvent[] = [];
    if (replaced != undefined) {
      events.push({ kind: "drop", slot, stamp, item: replaced, reason: "duplicate-stamp" });
    }
    const erased: [number, (string | undefined)[], string][] = [];
    if (t.every((x) => x != undefined)) {
      events.push({ kind: "emit", stamps: new Array<number>(slots).fill(stamp), items: [...t] as string[] });
      for (const s of [...tuples.keys()].sort((a, b) => a - b)) {
        if (s <= stamp) {
          if (s !== stamp) {
            erased.push([s, tuples.get(s)!, "not-selected"]);
          }
          tuples.delete(s);
        }
      }
    }
    while (queueSize > 0 && tuples.size > queueSize) {
      const oldest = Math.min(...tuples.keys());
      erased.push([oldest, tuples.get(oldest)!, "queue-overflow"]);
      tuples.delete(oldest);
    }
    for (const [s, items, reason] of erased) {
      items.forEach((member, i) => {
        if (member != undefined) {
          events.push({ kind: "drop", slot: i, stamp: s, item: member, reason });
        }
      });
      events.push({ kind: "partial", stamp: s, items: [...items], reason });
    }
    for (const e of events) {
      out.push(e);
      if (nesting.at.has(out.length - 1) && nextNested < nesting.adds.length) {
        process(nesting.adds[nextNested++]!);
      }
    }
  };
  for (const a of adds) {
    process(a);
  }
  return out;
}
