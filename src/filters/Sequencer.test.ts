import fc from "fast-check";
import { describe, expect, it } from "vitest";

import type { DropEvent } from "./DropReason";
import { Sequencer } from "./Sequencer";
import { SimpleUserFilter } from "./SimpleUserFilter";
import { UserSource } from "./UserSource";
import { chain } from "./chain";

type Msg = { id: number; stamp: number };
const S = 1_000_000_000;

function rig(maxDelay?: number) {
  const src = new UserSource<[Msg]>();
  const seq = new Sequencer<[Msg]>({ stampOf: (m) => m.stamp, maxDelay });
  const out: Msg[] = [];
  const snk = new SimpleUserFilter<[Msg]>((m) => {
    const last = out[out.length - 1];
    if (last != undefined && m.stamp < last.stamp) {
      throw new Error("Time stamp order violated");
    }
    out.push(m);
    return true;
  });
  chain(src, seq, snk);
  const drops: DropEvent<Msg>[] = [];
  seq.onDrop((d) => drops.push(d));
  let id = 0;
  const push = (stamp: number) => {
    src.push({ id: id++, stamp });
  };
  return { src, seq, out, drops, push };
}

describe("Sequencer", () => {
  it("upstream test_sequencer: order, max_delay drop, flush (max delay 10 s)", () => {
    const { seq, out, drops, push } = rig(10 * S);
    for (const sec of [100, 95, 98, 92, 91, 97, 50]) {
      push(sec * S);
    }
    expect(out).toHaveLength(0);
    // 50 s is below the cutoff 100 - 10 = 90 s.
    expect(drops.map((d) => [d.slot, d.stamp, d.reason, d.item.id])).toEqual([
      [0, 50 * S, "too-late", 6],
    ]);
    push(105 * S); // cutoff 95 s: releases 91, 92, 95
    expect(out.map((m) => m.stamp / S)).toEqual([91, 92, 95]);
    push(120 * S); // cutoff 110 s: releases 97, 98, 100, 105
    expect(out.map((m) => m.stamp / S)).toEqual([91, 92, 95, 97, 98, 100, 105]);
    seq.flush();
    expect(out.map((m) => m.stamp / S)).toEqual([91, 92, 95, 97, 98, 100, 105, 120]);
    expect(seq.cutoff).toBe(120 * S);
    push(119 * S); // below the cutoff left by flush
    seq.flush();
    expect(out).toHaveLength(8);
    expect(drops.map((d) => [d.stamp / S, d.reason])).toEqual([
      [50, "too-late"],
      [119, "too-late"],
    ]);
  });

  it("default max delay is 1 s; equal stamps keep arrival order; <= cutoff is released", () => {
    const { seq, out, push } = rig();
    expect(seq.maxDelay).toBe(S);
    push(5 * S);
    push(5 * S);
    push(4 * S);
    push(6 * S); // cutoff 5 s: 4 s, then both 5 s in arrival order
    expect(out.map((m) => [m.stamp / S, m.id])).toEqual([
      [4, 2],
      [5, 0],
      [5, 1],
    ]);
  });

  it("reset drops what is held (reason reset) and puts the cutoff back to zero", () => {
    const { seq, out, drops, push } = rig(10);
    push(100);
    push(95);
    seq.reset();
    expect(seq.size).toBe(0);
    expect(seq.cutoff).toBe(0);
    expect(drops.map((d) => [d.stamp, d.reason])).toEqual([
      [95, "reset"],
      [100, "reset"],
    ]);
    push(3); // would have been too late before the reset
    seq.flush();
    expect(out.map((m) => m.stamp)).toEqual([3]);
  });

  it("headerless inputs are dropped as no-header; bad max delays are rejected", () => {
    const { drops, push, seq } = rig();
    push(NaN);
    expect(drops.map((d) => d.reason)).toEqual(["no-header"]);
    expect(() => seq.setMaxDelay(-1)).toThrow(/maxDelay must be a finite duration >= 0 ns/);
  });

  it("a throwing sink leaves the unsent part of the batch queued, in order", () => {
    const src = new UserSource<[Msg]>();
    const seq = new Sequencer<[Msg]>({ stampOf: (m) => m.stamp, maxDelay: 10 });
    const out: number[] = [];
    let fail = true;
    src.connectToSink(seq);
    seq.connectToSink(
      new SimpleUserFilter<[Msg]>((m) => {
        if (fail && m.stamp === 2) {
          throw new Error("sink failed");
        }
        out.push(m.stamp);
        return true;
      }),
    );
    for (const s of [1, 2, 3]) {
      src.push({ id: s, stamp: s });
    }
    expect(() => {
      src.push({ id: 99, stamp: 20 });
    }).toThrow("sink failed");
    expect(out).toEqual([1]);
    fail = false;
    seq.flush();
    expect(out).toEqual([1, 3, 20]);
  });

  it("property: matches a brute-force model; sorted output; each input released or dropped once", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 60 }), fc.constant(-1)), { maxLength: 60 }),
        fc.integer({ min: 0, max: 15 }),
        (events, maxDelay) => {
          // -1 = flush
          const { seq, out, drops, push } = rig(maxDelay);
          let id = 0;
          // Model: keep everything held in an unsorted list; sort only when releasing.
          let cutoff = 0;
          let held: Msg[] = [];
          const expectOut: Msg[] = [];
          const expectDrops: number[] = [];
          const byStampThenArrival = (a: Msg, b: Msg) =>
            a.stamp !== b.stamp ? a.stamp - b.stamp : a.id - b.id;
          for (const e of events) {
            if (e === -1) {
              seq.flush();
              const all = [...held].sort(byStampThenArrival);
              held = [];
              expectOut.push(...all);
              if (all.length > 0) {
                cutoff = all[all.length - 1]!.stamp;
              }
              continue;
            }
            const m: Msg = { id: id++, stamp: e };
            push(e);
            cutoff = Math.max(cutoff, e - maxDelay);
            if (e < cutoff) {
              expectDrops.push(m.id);
              continue;
            }
            held.push(m);
            const ready = held.filter((h) => h.stamp <= cutoff).sort(byStampThenArrival);
            held = held.filter((h) => h.stamp > cutoff);
            expectOut.push(...ready);
          }
          expect(out).toEqual(expectOut);
          expect(drops.map((d) => d.item.id)).toEqual(expectDrops);
          expect(drops.every((d) => d.reason === "too-late")).toBe(true);
          for (let i = 1; i < out.length; i++) {
            expect(out[i]!.stamp).toBeGreaterThanOrEqual(out[i - 1]!.stamp);
          }
          seq.flush();
          const seen = [...out.map((m) => m.id), ...drops.map((d) => d.item.id)].sort(
            (a, b) => a - b,
          );
          expect(seen).toEqual(Array.from({ length: id }, (_, i) => i));
        },
      ),
      { numRuns: 400 },
    );
  });
});
