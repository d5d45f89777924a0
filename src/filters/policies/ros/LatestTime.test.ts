import { describe, expect, it } from "vitest";

import { LatestTime, type RosLatestTimeOptions } from "./LatestTime";
import { recordingHostOf } from "../testing/RecordingHost";

const STEP = 20_000_000; // the upstream tests advance the clock 20 ms per step

/**
 * Upstream: ros2/message_filters test/test_latest_time_policy.cpp. Slots p (0), q (1), r (2);
 * each message carries a `data` id; outputs are compared as data tuples. Leading/Trailing use a
 * 50 Hz wall-clock Rate, ChangeRate* a simulated clock; here every message of step idx arrives at
 * exactly idx × 20 ms (the simulated clock of the ChangeRate cases).
 */
function harness(options?: RosLatestTimeOptions) {
  const policy = new LatestTime<string>(3, options);
  const host = recordingHostOf(policy);
  let now = 0;
  let pIdx = 3;
  const add = (slot: number, data: number) => {
    policy.add(slot, NaN, `${["p", "q", "r"][slot]!}${data}`, now);
  };
  return {
    host,
    add,
    /**
     * Upstream's q (every 2nd step) and r (every 4th step) at step `idx`: "leading" sends them
     * with the step's own data id, "trailing" one and three steps later with the earlier id.
     */
    addQR: (idx: number, order: "leading" | "trailing") => {
      const [qLag, rLag] = order === "leading" ? [0, 0] : [1, 3];
      if (idx % 2 === qLag) {
        add(1, idx - qLag);
      }
      if (idx % 4 === rLag) {
        add(2, idx - rLag);
      }
    },
    /**
     * Upstream's p in the ChangeRate cases: every step up to step 3, then only at the steps with
     * idx % 3 === phase, its data id counting on from 4.
     */
    addSlowingP: (idx: number, phase: number) => {
      if (idx < 4) {
        add(0, idx);
      } else if (idx % 3 === phase) {
        add(0, ++pIdx);
      }
    },
    step: () => {
      now += STEP;
    },
    count: () => host.items.length,
    last: () => host.items[host.items.length - 1],
    /** Asserts that `count` sets were emitted so far, the newest being `last`. */
    expectSets: (count: number, last: string[]) => {
      expect(host.items.length).toBe(count);
      expect(host.items[host.items.length - 1]).toEqual(last);
    },
  };
}

/** What a step expects: the number of sets emitted so far and the newest one, or 0 (none yet). */
type Expected = readonly [count: number, last: string[]] | 0;

/**
 * One upstream loop over `steps` steps: at step idx q and r are sent in `order`, then p (every
 * step, or slowing down as in the ChangeRate cases with `pPhase`), then `expected(idx)` is
 * checked; the clock then advances one step.
 */
function runSteps(
  steps: number,
  order: "leading" | "trailing",
  pPhase: number | undefined,
  expected: (idx: number) => Expected,
): void {
  const h = harness();
  for (let idx = 0; idx < steps; idx++) {
    h.addQR(idx, order);
    if (pPhase == undefined) {
      h.add(0, idx);
    } else {
      h.addSlowingP(idx, pPhase);
    }
    const e = expected(idx);
    if (e === 0) {
      expect(h.count()).toBe(0);
    } else {
      h.expectSets(e[0], e[1]);
    }
    h.step();
  }
}

// The data ids of the k-th message of each slot in the ChangeRate cases.
const P = (k: number) => `p${k}`;
const Q = (k: number) => `q${2 * k}`;
const R = (k: number) => `r${4 * k}`;
const f = Math.floor;

describe("ros/latest-time upstream scenarios", () => {
  it("Leading", () => {
    runSteps(8, "leading", undefined, (idx) =>
      idx > 0 ? [idx, [`p${idx}`, `q${2 * Math.floor(idx / 2)}`, `r${4 * Math.floor(idx / 4)}`]] : 0,
    );
  });

  it("Trailing", () => {
    runSteps(8, "trailing", undefined, (idx) =>
      idx > 2 ? [idx - 2, [`p${idx}`, `q${2 * Math.floor((idx - 1) / 2)}`, `r${4 * Math.floor((idx - 3) / 4)}`]] : 0,
    );
  });

  it("ChangeRateLeading", () => {
    runSteps(12, "leading", 0, (idx) =>
      idx >= 1 && idx < 4
        ? [idx, [P(idx), Q(f(idx / 2)), R(f(idx / 4))]]
        : idx >= 4 && idx < 6
          ? // p slowed down but is not seen late until q arrives at idx 6
            [f((idx + 2) / 2), [P(3), Q(1), R(0)]]
          : idx >= 6
            ? // q is the pivot from idx 6 on
              [f((idx + 2) / 2), [P(f(idx / 2)), Q(f(idx / 2)), R(f((idx - 2) / 4))]]
            : 0,
    );
  });

  it("ChangeRateTrailing", () => {
    runSteps(12, "trailing", 1, (idx) =>
      idx > 2 && idx <= 4
        ? [idx - 2, [P(idx), Q(f((idx - 1) / 2)), R(f((idx - 3) / 4))]]
        : idx > 4 && idx < 7
          ? [2, [P(4), Q(1), R(0)]]
          : idx >= 7
            ? [f((idx - 1) / 2), [P(f((idx + 1) / 2)), Q(f((idx - 1) / 2)), R(f((idx - 5) / 4))]]
            : 0,
    );
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
      const host = recordingHostOf(policy);
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
