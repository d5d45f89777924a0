import { describe, expect, it } from "vitest";

import type { DropReason } from "../DropReason";
import { Sink } from "../Sink";
import { UserSource } from "../UserSource";
import { TfFilter } from "./TfFilter";
import { TransformBuffer } from "./TransformBuffer";

interface Stamped {
  frame: string;
  stamp: number;
}

const S = 1_000_000_000;

/** Port of fkie_message_filters test_tf_filter.cpp (reference §3): stamps in seconds → ns. */
describe("TfFilter (fkie test_tf_filter)", () => {
  it("waits, passes, expires, overflows, resets and rejects empty frames exactly as upstream", () => {
    const bc = new TransformBuffer({ cacheTime: 10 * S });
    const setTf = (child: string, sec: number): void => {
      bc.setTransform("target", child, sec * S, { translation: [0, 0, 0], rotation: [0, 0, 0, 1] });
    };
    const src = new UserSource<[Stamped]>();
    const flt = new TfFilter<Stamped>(bc, {
      targetFrames: ["target"],
      queueSize: 2,
      stampOf: (m) => m.stamp,
      frameOf: (m) => m.frame,
    });
    const counts: Partial<Record<DropReason, number>> = {};
    flt.onDrop((d) => {
      counts[d.reason] = (counts[d.reason] ?? 0) + 1;
    });
    const received: Stamped[] = [];
    class Snk extends Sink<[Stamped]> {
      protected override receive(m: Stamped): void {
        // upstream's sink asserts the transform really is available
        if (!bc.canTransform("target", m.frame, m.stamp)) {
          throw new Error(`not transformable: ${m.frame} @ ${m.stamp}`);
        }
        received.push(m);
      }
    }
    src.connectToSink(flt);
    flt.connectToSink(new Snk());
    const msg = (frame: string, sec: number): Stamped => ({ frame, stamp: sec * S });
    const check = (callbacks: number, empty: number, expired: number, overflow: number): void => {
      expect(received.length).toBe(callbacks);
      expect(counts["empty-frame-id"] ?? 0).toBe(empty);
      expect(counts["transform-unavailable"] ?? 0).toBe(expired);
      expect(counts["queue-overflow"] ?? 0).toBe(overflow);
    };

    setTf("alpha", 99);
    setTf("beta", 99);
    // waits when the transform is older than needed
    src.push(msg("alpha", 100));
    check(0, 0, 0, 0);
    // passes once the transform updates
    setTf("alpha", 101);
    check(1, 0, 0, 0);
    // older than the cache length: instant fail
    src.push(msg("alpha", 50));
    check(1, 0, 1, 0);
    // transform available: instant pass
    src.push(msg("alpha", 100));
    check(2, 0, 1, 0);
    // unknown frames wait
    src.push(msg("gamma", 100));
    check(2, 0, 1, 0);
    // overflow discards the oldest (gamma)
    src.push(msg("beta", 102));
    src.push(msg("alpha", 102));
    check(2, 0, 1, 1);
    // the remaining messages pass
    setTf("alpha", 103);
    setTf("beta", 103);
    check(4, 0, 1, 1);
    expect(received.slice(2).map((m) => m.frame)).toEqual(["alpha", "beta"]);
    // fill the queue: nothing happens
    src.push(msg("gamma", 100));
    src.push(msg("gamma", 100));
    check(4, 0, 1, 1);
    // reset: no failure reasons (Lockstep reports the two held messages as "reset")
    flt.reset();
    expect(counts.reset).toBe(2);
    src.push(msg("alpha", 100));
    src.push(msg("beta", 100));
    check(6, 0, 1, 1);
    src.push(msg("", 100));
    check(6, 1, 1, 1);
  });

  it("needs every target frame and strips leading slashes", () => {
    const bc = new TransformBuffer();
    const flt = new TfFilter<Stamped>(bc, {
      targetFrames: ["/map", "", "odom"],
      queueSize: 5,
      stampOf: (m) => m.stamp,
      frameOf: (m) => m.frame,
    });
    expect(flt.targetFrames).toEqual(["map", "odom"]);
    const out: Stamped[] = [];
    const src = new UserSource<[Stamped]>();
    src.connectToSink(flt);
    class Snk extends Sink<[Stamped]> {
      protected override receive(m: Stamped): void {
        out.push(m);
      }
    }
    flt.connectToSink(new Snk());
    bc.setStaticTransform("odom", "base", { translation: [1, 0, 0], rotation: [0, 0, 0, 1] });
    src.push({ frame: "/base", stamp: 5 });
    expect(out.length).toBe(0);
    expect(flt.pending).toBe(1);
    bc.setStaticTransform("map", "odom", { translation: [0, 0, 0], rotation: [0, 0, 0, 1] });
    expect(out.length).toBe(1);
    expect(flt.pending).toBe(0);
    expect(() => new TfFilter<Stamped>(bc, { targetFrames: [], queueSize: 0, stampOf: () => 0, frameOf: () => "" })).toThrow(
      /queueSize must be an integer >= 1/,
    );
  });
});
