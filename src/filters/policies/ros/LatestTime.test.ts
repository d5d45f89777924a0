import { describe, expect, it } from "vitest";

import { LatestTime, type RosLatestTimeOptions } from "./LatestTime";
import { RecordingHost } from "../testing/RecordingHost";

const STEP = 20_000_000; // the upstream tests advance the clock 20 ms per step

/**
 * Upstream: ros2/message_filters test/test_latest_time_policy.cpp. Slots p (0), q (1), r (2);
 * each message carries a `data` id; outputs are compared as data tuples. Leading/Trailing use a
 * 50 Hz wall-clock Rate, ChangeRate* a simulated clock; here every message of step idx arrives at
 * exactly idx × 20 ms (the simulated clock of the ChangeRate cases).
 */
function harness(options?: RosLatestTimeOptions) {
  const policy = new LatestTime<string>(3, options);
  const host = new RecordingHost<string>();
  policy.bind(host);
  let now = 0;
  return {
    host,
    add: (slot: number, data: number) => {
      policy.add(slot, NaN, `${["p", "q", "r"][slot]!}${data}`, now);
    },
    step: () => {
      now += STEP;
    },
    count: () => host.items.length,
    last: () => host.items[host.items.length - 1],
  };
}

describe("ros/latest-time upstream scenarios", () => {
  it("Leading", () => {
    const h = harness();
    for (let idx = 0; idx < 8; idx++) {
      if (idx % 2 === 0) {
        h.add(1, idx);
      }
      if (idx % 4 === 0) {
        h.add(2, idx);
      }
      h.add(0, idx);
      expect(h.count()).toBe(idx);
      if (idx > 0) {
        expect(h.last()).toEqual([`p${idx}`, `q${2 * Math.floor(idx / 2)}`, `r${4 * Math.floor(idx / 4)}`]);
      }
      h.step();
    }
  });

  it("Trailing", () => {
    const h = harness();
    for (let idx = 0; idx < 8; idx++) {
      if (idx % 2 === 1) {
        h.add(1, idx - 1);
      }
      if (idx % 4 === 3) {
        h.add(2, idx - 3);
      }
      h.add(0, idx);
      if (idx > 2) {
        expect(h.count()).toBe(idx - 2);
        expect(h.last()).toEqual([`p${idx}`, `q${2 * Math.floor((idx - 1) / 2)}`, `r${4 * Math.floor((idx - 3) / 4)}`]);
      } else {
        expect(h.count()).toBe(0);
      }
      h.step();
    }
  });

  it("ChangeRateLeading", () => {
    const h = harness();
    let pIdx = 3;
    // data ids: p[k].data = k, q[k].data = 2k, r[k].data = 4k
    const P = (k: number) => `p${k}`;
    const Q = (k: number) => `q${2 * k}`;
    const R = (k: number) => `r${4 * k}`;
    for (let idx = 0; idx < 12; idx++) {
      if (idx % 2 === 0) {
        h.add(1, idx);
      }
      if (idx % 4 === 0) {
        h.add(2, idx);
      }
      if (idx < 4) {
        h.add(0, idx);
      } else if (idx % 3 === 0) {
        h.add(0, ++pIdx);
      }
      const f = Math.floor;
      if (idx >= 1 && idx < 4) {
        expect(h.count()).toBe(idx);
        expect(h.last()).toEqual([P(idx), Q(f(idx / 2)), R(f(idx / 4))]);
      } else if (idx >= 4 && idx < 6) {
        // p slowed down but is not seen late until q arrives at idx 6
        expect(h.count()).toBe(f((idx + 2) / 2));
        expect(h.last()).toEqual([P(3), Q(1), R(0)]);
      } else if (idx >= 6) {
        // q is the pivot from idx 6 on
        expect(h.count()).toBe(f((idx + 2) / 2));
        expect(h.last()).toEqual([P(f(idx / 2)), Q(f(idx / 2)), R(f((idx - 2) / 4))]);
      } else {
        expect(h.count()).toBe(0);
      }
      h.step();
    }
  });

  it("ChangeRateTrailing", () => {
    const h = harness();
    let pIdx = 3;
    const P = (k: number) => `p${k}`;
    const Q = (k: number) => `q${2 * k}`;
    const R = (k: number) => `r${4 * k}`;
    const f = Math.floor;
    for (let idx = 0; idx < 12; idx++) {
      if (idx % 2 === 1) {
        h.add(1, idx - 1);
      }
      if (idx % 4 === 3) {
        h.add(2, idx - 3);
      }
      if (idx < 4) {
        h.add(0, idx);
      } else if (idx % 3 === 1) {
        h.add(0, ++pIdx);
      }
      if (idx > 2 && idx <= 4) {
        expect(h.count()).toBe(idx - 2);
        expect(h.last()).toEqual([P(idx), Q(f((idx - 1) / 2)), R(f((idx - 3) / 4))]);
      } else if (idx > 4 && idx < 7) {
        expect(h.count()).toBe(2);
        expect(h.last()).toEqual([P(4), Q(1), R(0)]);
      } else if (idx >= 7) {
        expect(h.count()).toBe(f((idx - 1) / 2));
        expect(h.last()).toEqual([P(f((idx + 1) / 2)), Q(f((idx - 1) / 2)), R(f((idx - 5) / 4))]);
      } else {
        expect(h.count()).toBe(0);
      }
      h.step();
    }
  });
});

describe("ros/latest-time details", () => {
  it("reports messages replaced before they were ever emitted as superseded", () => {
    const h = harness();
    // Leading pattern, 2 steps: q0 and r0 are emitted with p1; p0 never is.
    h.add(1, 0);
    h.add(2, 0);
    h.add(0, 0);
    h.step();
    h.add(0, 1);
    expect(h.count()).toBe(1);
    expect(h.host.drops.map((d) => [d.item, d.reason])).toEqual([["p0", "superseded"]]);
  });

  it("first-arrival-order quirk: a slot is timed by the estimator another slot created", () => {
    // Slot 1 arrives first at t=0, slot 0 first at t=100ms. With the quirk, estimator index 0
    // was created by slot 1 (prev = 0) and index 1 by slot 0 (prev = 100ms), yet slot i updates
    // index i. Fixed, each slot updates the estimator it created.
    const run = ({ fix }: { fix: boolean }) => {
      const policy = new LatestTime<string>(2, { fixFirstArrivalOrder: fix });
      const host = new RecordingHost<string>();
      policy.bind(host);
      const ms = 1_000_000;
      policy.add(1, NaN, "q0", 0);
      policy.add(0, NaN, "p0", 100 * ms);
      policy.add(0, NaN, "p1", 120 * ms);
      policy.add(1, NaN, "q1", 200 * ms);
      return host.items;
    };
    // Fixed: p1 at 120ms: period 20ms, hz 50, pivot 0 == slot 0, both full -> emit (p1, q0).
    // q1 at 200ms updates slot 1's own estimator (prev 0): hz 5 < 50; slot 0 is not late (no
    // error estimate yet) -> pivot 0 != 1: no emit.
    expect(run({ fix: true })).toEqual([["p1", "q0"]]);
    // Quirk: p1 updates index 0 (prev 0): period 120ms, hz 8.33; index 1 has no rate yet ->
    // pivot 0 -> emit (p1, q0). q1 updates index 1 (prev 100ms): period 100ms, hz 10 > 8.33 ->
    // pivot 1 == slot 1 -> emit (p1, q1).
    expect(run({ fix: false })).toEqual([["p1", "q0"], ["p1", "q1"]]);
  });

  it("validates rate configs", () => {
    expect(() => new LatestTime(3, { rateConfig: [{}, {}] })).toThrow(/rateConfig has 2 entries/);
    expect(() => new LatestTime(2, { rateConfig: { alphaRate: 2 } })).toThrow(/rateConfig.alphaRate/);
    expect(() => new LatestTime(2, { rateConfig: [{}, { margin: -1 }] })).toThrow(/rateConfig\[1\].margin/);
  });
});
