import { describe, expect, it } from "vitest";

import { parseDuration } from "../../time";
import { parseConfig } from "../parseConfig";
import { describeDiagnosis, diagnose } from "./diagnose";
import { runTrace } from "./runTrace";
import { durationResolution } from "./search";
import { syntheticTrace, type SyntheticInput } from "./testTraces";

/** A trace built to show one cause alone, the config that suffers from it, and the cause. */
interface CauseCase {
  readonly cause: string;
  readonly policy: Record<string, unknown>;
  readonly inputs: readonly SyntheticInput[];
  /** Whether the cause has a parameter fix (data causes are fixed upstream). */
  readonly fixable: boolean;
}

const CASES: readonly CauseCase[] = [
  {
    cause: "queue-too-short",
    policy: { type: "ros/approximate-time", queueSize: 5 },
    inputs: [{ periodMs: 10 }, { periodMs: 100, offsetMs: 3, latencyMs: 200 }],
    fixable: true,
  },
  {
    cause: "timespan-limit-too-small",
    policy: { type: "fkie/approximate-time", maxTimespan: "1ms" },
    inputs: [{ periodMs: 100 }, { periodMs: 100, offsetMs: 20 }],
    fixable: true,
  },
  {
    cause: "timespan-limit-too-small",
    policy: { type: "python/approximate-time", queueSize: 10, slop: "2ms" },
    inputs: [{ periodMs: 50 }, { periodMs: 50, offsetMs: 15 }],
    fixable: true,
  },
  {
    cause: "max-age-too-small",
    policy: { type: "fkie/approximate-time", maxAge: "50ms" },
    inputs: [{ periodMs: 10 }, { periodMs: 100, offsetMs: 3, latencyMs: 200 }],
    fixable: true,
  },
  {
    // minDistance above each input's period: the policy takes a set before the closer message arrives.
    cause: "lower-bound-too-large",
    policy: { type: "fkie/approximate-time", minDistance: ["49.5ms", "300ms", "100ms"], maxTimespan: "40ms" },
    inputs: [
      { periodMs: 33, offsetMs: 17, jitterMs: 5 },
      { periodMs: 100, offsetMs: 11, jitterMs: 5 },
      { periodMs: 50, offsetMs: 16, latencyMs: 30 },
    ],
    fixable: true,
  },
  {
    // A near-zero agePenalty keeps waiting for a better set until the queue overflows.
    cause: "age-penalty",
    policy: { type: "ros/approximate-time", queueSize: 20, agePenalty: 0.001 },
    inputs: [
      { periodMs: 20, offsetMs: 5, jitterMs: 5 },
      { periodMs: 20, offsetMs: 13, jitterMs: 5 },
    ],
    fixable: true,
  },
  {
    cause: "out-of-order-resets",
    policy: { type: "fkie/approximate-time" },
    inputs: [{ periodMs: 20 }, { periodMs: 100, offsetMs: 3, backEvery: 3, backMs: 150 }],
    fixable: true,
  },
  {
    cause: "headerless-not-allowed",
    policy: { type: "python/approximate-time", queueSize: 10, slop: "20ms" },
    inputs: [{ periodMs: 20 }, { periodMs: 100, offsetMs: 3, headerlessEvery: 1 }],
    fixable: true,
  },
  {
    cause: "missing-stamps",
    policy: { type: "ros/approximate-time", queueSize: 10 },
    inputs: [{ periodMs: 20 }, { periodMs: 100, offsetMs: 3, zeroEvery: 2 }],
    fixable: false,
  },
  {
    // /topic1's machine clock runs an hour ahead: its stamps do, its receive times do not.
    cause: "clock-offset",
    policy: { type: "python/approximate-time", queueSize: 10, slop: "20ms" },
    inputs: [{ periodMs: 50 }, { periodMs: 50, offsetMs: 3, clockOffsetMs: 3_600_000 }],
    fixable: false,
  },
  {
    cause: "clock-offset",
    policy: { type: "fkie/approximate-time", maxTimespan: "10ms" },
    inputs: [{ periodMs: 20 }, { periodMs: 100, offsetMs: 4, latencyMs: 6, clockOffsetMs: -7_200_000 }],
    fixable: false,
  },
  {
    cause: "stamps-never-line-up",
    policy: { type: "ros/exact-time", queueSize: 10 },
    inputs: [{ periodMs: 20, jitterMs: 2 }, { periodMs: 100, offsetMs: 3, jitterMs: 2 }],
    fixable: true,
  },
  {
    cause: "stamps-never-line-up",
    policy: { type: "fkie/exact-time" },
    inputs: [{ periodMs: 20, jitterMs: 2 }, { periodMs: 100, offsetMs: 3, jitterMs: 2 }],
    fixable: true,
  },
];

describe("causes, each on a trace built to show it alone", () => {
  for (const c of CASES) {
    it(`${c.cause} under ${JSON.stringify(c.policy)}: found, ranked first, and its fix gives the sets it says`, () => {
      const trace = syntheticTrace(c.inputs, 10_000);
      const config = parseConfig({ slots: c.inputs.length, policy: c.policy });
      const d = diagnose(trace, config.policy);
      const top = d.causes[0]!;
      expect(top.id).toBe(c.cause);
      expect(top.setsLost).toBeGreaterThan(0);
      expect(top.message.length).toBeGreaterThan(20);
      if (c.fixable) {
        expect(top.fix).toBeDefined();
        const fixed = parseConfig({ slots: c.inputs.length, policy: top.fix!.policy });
        const run = runTrace(fixed.policy, trace);
        expect(run.tuples).toBe(top.fix!.tuples);
        expect(run.tuples).toBeGreaterThan(d.tuples);
        // the fix recovers what the cause says it costs
        expect(run.tuples - d.tuples).toBeGreaterThanOrEqual(top.setsLost);
      }
    });
  }

  it("exact-time on stamps a constant offset apart names the offset, not a jitter of 0 ms", () => {
    // jackal-sim-2014's odometry is stamped exactly 4 ms after an IMU stamp, without jitter.
    const trace = syntheticTrace([{ periodMs: 20 }, { periodMs: 100, offsetMs: 4 }], 10_000);
    const d = diagnose(trace, parseConfig({ slots: 2, policy: { type: "ros/exact-time", queueSize: 10 } }).policy);
    const cause = d.causes.find((c) => c.id === "stamps-never-line-up")!;
    expect(cause.message).toContain("lies 4.0 ms from the nearest /topic0 stamp (always: a constant offset, no jitter)");
    expect(cause.message).not.toContain("jitter by up to");
  });

  it("names no set-losing cause for a config that already gives the most sets", () => {
    const trace = syntheticTrace([{ periodMs: 20 }, { periodMs: 100, offsetMs: 3 }], 10_000);
    const d = diagnose(trace, parseConfig({ slots: 2, policy: { type: "ros/approximate-time", queueSize: 10 } }).policy);
    expect(d.causes.filter((c) => c.setsLost > 0)).toEqual([]);
    expect(d.suggestions.filter((s) => s.kind === "first")).toEqual([]);
    expect(d.headline).toContain("already gives");
  });

  it("reports clock offsets and receive bursts as facts that cost no sets", () => {
    const trace = syntheticTrace([{ periodMs: 10, latencyMs: -30 }, { periodMs: 100, offsetMs: 3 }], 5_000);
    const d = diagnose(trace, parseConfig({ slots: 2, policy: { type: "ros/approximate-time", queueSize: 30 } }).policy);
    const offset = d.causes.find((c) => c.id === "clock-offset");
    expect(offset?.topic).toBe("/topic0");
    expect(offset?.setsLost).toBe(0);
    expect(d.facts[0]!.futureStamps).toBe(d.facts[0]!.messages);
  });
});

describe("fkie/fifo with maxQueueSize 0 (D1: for fifo 0 holds nothing, not unlimited)", () => {
  const inputs = [{ periodMs: 33 }, { periodMs: 100, offsetMs: 3 }];
  const policy = { type: "fkie/fifo", maxQueueSize: 0 };

  it("names maxQueueSize 0 as the cause and suggests 1, with the sets an actual run with 1 gives", () => {
    const trace = syntheticTrace(inputs, 10_000);
    const d = diagnose(trace, parseConfig({ slots: 2, policy }).policy);
    expect(d.tuples).toBe(0);
    const withOne = runTrace(parseConfig({ slots: 2, policy: { ...policy, maxQueueSize: 1 } }).policy, trace).tuples;
    expect(withOne).toBeGreaterThan(0);
    const top = d.causes[0]!;
    expect(top.id).toBe("queue-holds-nothing");
    expect(top.setsLost).toBe(withOne);
    expect(top.fix).toEqual({ policy: { ...policy, maxQueueSize: 1 }, tuples: withOne });
    expect(top.message).toContain("maxQueueSize 0");
    expect(d.headline).toContain(`Change maxQueueSize 0 → 1: ${withOne} sets instead of 0`);
    expect(d.headline).not.toContain("nothing in the stamps to tune");
    expect(d.suggestions[0]).toMatchObject({ kind: "first", policy: { ...policy, maxQueueSize: 1 }, tuples: withOne });
  });

  it("names nothing of the kind for maxQueueSize 1", () => {
    const trace = syntheticTrace(inputs, 10_000);
    const d = diagnose(trace, parseConfig({ slots: 2, policy: { ...policy, maxQueueSize: 1 } }).policy);
    expect(d.causes.map((c) => c.id)).not.toContain("queue-holds-nothing");
  });
});

describe("a slow topic's bound on the sets (D7)", () => {
  const inputs = [{ periodMs: 10 }, { periodMs: 100, offsetMs: 3 }];

  it("is not claimed for policies that reuse a message in several sets (ros/latest-time, fkie/latch), nor past the sets the run gives", () => {
    const trace = syntheticTrace(inputs, 5_000);
    for (const policy of [{ type: "ros/latest-time" }, { type: "fkie/latch", trigger: 0 }]) {
      const d = diagnose(trace, parseConfig({ slots: 2, policy }).policy);
      expect(d.tuples).toBeGreaterThan(d.facts[1]!.messages);
      expect(d.causes.map((c) => c.id)).not.toContain("slow-topic");
    }
  });

  it("is still named for a policy that uses each message once", () => {
    const trace = syntheticTrace(inputs, 5_000);
    const d = diagnose(trace, parseConfig({ slots: 2, policy: { type: "ros/approximate-time", queueSize: 10 } }).policy);
    const slow = d.causes.find((c) => c.id === "slow-topic");
    expect(slow?.topic).toBe("/topic1");
    expect(d.tuples).toBeLessThanOrEqual(d.facts[1]!.messages);
  });
});

describe("a clock offset of seconds on one input, whose stamps still meet the others' (D8)", () => {
  // /topic2's machine clock runs 2 s ahead; the other inputs are continuous, so its stamps
  // find partners: 2 s away from the data they were measured with.
  const inputs = [{ periodMs: 33, latencyMs: 25 }, { periodMs: 100, offsetMs: 3 }, { periodMs: 400, offsetMs: 7, clockOffsetMs: 2000 }];
  const policy = { type: "fkie/approximate-time", maxQueueSize: 20, maxAge: null, maxTimespan: "50ms" };

  it("says the sets are mis-paired by about 2.0 s, counts the sets with that clock set right, and suggests no wider tolerance", () => {
    const trace = syntheticTrace(inputs, 20_000);
    const config = parseConfig({ slots: 3, policy });
    const d = diagnose(trace, config.policy);
    expect(d.tuples).toBeGreaterThan(0);
    const top = d.causes[0]!;
    expect([top.id, top.topic]).toEqual(["clock-offset", "/topic2"]);
    // Every emitted set pairs /topic2 with data 2 s off: none of them is right.
    expect(top.evidence.misPaired).toBe(d.tuples);
    expect(top.message).toContain(`All ${d.tuples} sets the policy emits pair /topic2 with data about 2.0 s away`);
    expect(top.message).not.toContain("never meet");
    // Its cost: the sets with the clock set right (an actual run), against the none right now.
    const shifted = runTrace(config.policy, trace, {
      stampOverride: (i) => (trace.slot(i) === 2 ? trace.stamp(i) - 2e9 : undefined),
    });
    expect(top.evidence.tuplesShifted).toBe(shifted.tuples);
    expect(top.setsLost).toBe(shifted.tuples);
    expect(d.headline).toBe(top.message);
    // Counts on the wrong clock are no suggestion: nothing widens a tolerance to absorb the offset.
    expect(d.suggestions).toEqual([]);
    expect(d.causes.filter((c) => c.id === "timespan-limit-too-small")).toEqual([]);
  });
});

describe("each cause states the change it proposes, in the direction an actual run shows helps (D4/D5)", () => {
  /** The parsed value of a duration or queue size in a fix's policy JSON (null = unlimited). */
  const parsed = (policy: Record<string, unknown>, name: string, slots: number): unknown =>
    (parseConfig({ slots, policy }).policy as unknown as Record<string, unknown>)[name];

  it("names a smaller queue and a lower maxAge when those are what give more sets (out-of-order resets empty a long queue)", () => {
    // /topic0 steps back every 10th message: each step resets fkie's policy, and the longer the
    // queue (or the older the messages it keeps), the more a reset throws away.
    const inputs = [{ periodMs: 10, latencyMs: 20, backEvery: 10, backMs: 10 }, { periodMs: 50, jitterMs: 3 }];
    const policy = { type: "fkie/approximate-time", maxQueueSize: 20, maxTimespan: "20ms" };
    const trace = syntheticTrace(inputs, 10_000);
    const d = diagnose(trace, parseConfig({ slots: 2, policy }).policy);
    const ids = d.causes.map((c) => c.id);
    expect(ids).not.toContain("queue-too-short");
    expect(ids).not.toContain("max-age-too-small");
    const queue = d.causes.find((c) => c.id === "queue-too-long")!;
    const q = parsed(queue.fix!.policy, "maxQueueSize", 2) as number;
    expect(q).toBeGreaterThan(0);
    expect(q).toBeLessThan(20);
    expect(queue.message).toContain(`maxQueueSize 20 → ${q} gives ${queue.fix!.tuples.toLocaleString("en-US")} sets instead of ${d.tuples}`);
    const age = d.causes.find((c) => c.id === "max-age-too-large")!;
    const a = parsed(age.fix!.policy, "maxAge", 2) as number;
    expect(a).toBeLessThan(1e9);
    expect(age.message).toMatch(new RegExp(`maxAge 1s → \\S+ gives ${age.fix!.tuples.toLocaleString("en-US")} sets instead of ${d.tuples}`));
    for (const c of [queue, age]) {
      expect(runTrace(parseConfig({ slots: 2, policy: c.fix!.policy }).policy, trace).tuples).toBe(c.fix!.tuples);
      expect(c.fix!.tuples).toBeGreaterThan(d.tuples);
    }
  });

  it("every cause with a fix, on every case above, gives more sets than the configured run and says how many", () => {
    for (const c of CASES) {
      const trace = syntheticTrace(c.inputs, 10_000);
      const config = parseConfig({ slots: c.inputs.length, policy: c.policy });
      const d = diagnose(trace, config.policy);
      for (const cause of d.causes.filter((x) => x.fix != undefined)) {
        const run = runTrace(parseConfig({ slots: c.inputs.length, policy: cause.fix!.policy }).policy, trace);
        expect(run.tuples).toBe(cause.fix!.tuples);
        expect(run.tuples, `${cause.id} under ${JSON.stringify(c.policy)}`).toBeGreaterThan(d.tuples);
        expect(cause.message, cause.id).toContain(`${cause.fix!.tuples.toLocaleString("en-US")} set`);
      }
    }
  });
});

describe("a lower bound above an input's shortest stamp gap (D4/D5: minDistance, interMessageLowerBound)", () => {
  // /topic0 comes every 33 ms, /topic1 every 100 ms ± 3 ms: a 100 ms bound is above both gaps.
  const inputs = [{ periodMs: 33 }, { periodMs: 100, offsetMs: 3, jitterMs: 6 }];
  const trace = syntheticTrace(inputs, 10_000);
  /** The slots whose bound in a policy JSON lies above the slot's shortest stamp gap. */
  const unsafe = (policy: Record<string, unknown>, name: string, gaps: readonly number[]): number[] => {
    const bound = (parseConfig({ slots: 2, policy }).policy as unknown as Record<string, readonly number[] | undefined>)[name] ?? [];
    return bound.flatMap((b, i) => (b > gaps[i]! ? [i] : []));
  };

  it("is named although the count looks fine, with the measured gap, the safe bound and the sets' spans before and after", () => {
    const policy = { type: "ros/approximate-time", queueSize: 10, interMessageLowerBound: ["100ms", "100ms"] };
    const d = diagnose(trace, parseConfig({ slots: 2, policy }).policy);
    const gaps = d.facts.map((t) => t.period!.min);
    const top = d.causes[0]!;
    expect([top.id, top.topic]).toEqual(["lower-bound-too-large", "/topic0"]);
    expect(top.message).toContain("/topic0's shortest stamp gap (33 ms)");
    const fixed = parseConfig({ slots: 2, policy: top.fix!.policy }).policy;
    expect(unsafe(top.fix!.policy, "interMessageLowerBound", gaps)).toEqual([]);
    const run = runTrace(fixed, trace);
    const now = runTrace(parseConfig({ slots: 2, policy }).policy, trace);
    expect(run.tuples).toBe(top.fix!.tuples);
    expect(run.tuples).toBeGreaterThanOrEqual(0.98 * now.tuples);
    // The sets it forms with a safe bound pair closer stamps: the bound mis-formed them.
    expect(run.timespan!.median).toBeLessThan(now.timespan!.median);
    expect(top.message).toContain(`${run.tuples} sets`);
    expect(d.headline.startsWith(top.message)).toBe(true);
    expect(d.headline).not.toContain("already gives");
    expect(unsafe(d.suggestions[0]!.policy, "interMessageLowerBound", gaps)).toEqual([]);
  });

  it("leads the fkie diagnosis, ahead of a limit that only hides it, and no suggestion keeps the bound", () => {
    const policy = { type: "fkie/approximate-time", maxQueueSize: 10, maxTimespan: "20ms", minDistance: ["100ms", "100ms"] };
    const d = diagnose(trace, parseConfig({ slots: 2, policy }).policy);
    const gaps = d.facts.map((t) => t.period!.min);
    expect(d.causes[0]!.id).toBe("lower-bound-too-large");
    expect(d.headline).toMatch(/^minDistance \[100ms, 100ms\] is above /);
    expect(d.suggestions.length).toBeGreaterThan(0);
    for (const s of d.suggestions.filter((x) => x.policy.type === policy.type)) {
      expect(unsafe(s.policy, "minDistance", gaps)).toEqual([]);
    }
  });

  it("is not named for bounds below every gap", () => {
    const policy = { type: "ros/approximate-time", queueSize: 10, interMessageLowerBound: ["29ms", "85ms"] };
    const d = diagnose(trace, parseConfig({ slots: 2, policy }).policy);
    expect(d.causes.map((c) => c.id)).not.toContain("lower-bound-too-large");
  });
});

describe("facts that cost no sets, in doctor's lines", () => {
  it("are listed under notes, not under the causes with the sets each costs", () => {
    // /topic0's stamps lie 30 ms in the future of their receive times; the queue is long enough.
    const trace = syntheticTrace([{ periodMs: 10, latencyMs: -30 }, { periodMs: 100, offsetMs: 3 }], 5_000);
    const d = diagnose(trace, parseConfig({ slots: 2, policy: { type: "ros/approximate-time", queueSize: 30 } }).policy);
    expect(d.causes.find((c) => c.id === "clock-offset")?.setsLost).toBe(0);
    const lines = describeDiagnosis(d);
    const notes = lines.indexOf("notes (facts that cost no sets):");
    expect(notes).toBeGreaterThan(0);
    expect(lines.slice(notes + 1).some((l) => l.startsWith("  clock-offset (/topic0): "))).toBe(true);
    const causes = lines.indexOf("causes (sets each costs):");
    const section = causes < 0 ? [] : lines.slice(causes + 1, notes);
    expect(section.filter((l) => l.includes("clock-offset"))).toEqual([]);
  });
});

describe("the headline", () => {
  it("says a change once when the first suggestion is the top cause's own fix, with the most the policy gives", () => {
    const trace = syntheticTrace([{ periodMs: 100 }, { periodMs: 100, offsetMs: 20 }], 10_000);
    const d = diagnose(trace, parseConfig({ slots: 2, policy: { type: "fkie/approximate-time", maxTimespan: "1ms" } }).policy);
    const top = d.causes[0]!;
    expect(d.suggestions[0]!.policy).toEqual(top.fix!.policy);
    const to = d.suggestions[0]!.changes[0]!.to as string;
    expect(d.headline.split(`→ ${to} gives`).length - 1).toBe(1);
    expect(d.headline.startsWith(top.message)).toBe(true);
    expect(d.headline).not.toContain("Change ");
    expect(d.headline).toContain(d.bestTuples > top.fix!.tuples ? `The most this policy gives here is ${d.bestTuples} (` : "That is the most this policy gives here.");
  });
});

describe("another policy's tolerance (an alternative has no configured value to stay near)", () => {
  // Stamps that never line up: /topic1 lies 7 ms (± 2 ms) after /topic0.
  const inputs = [{ periodMs: 100 }, { periodMs: 100, offsetMs: 7, jitterMs: 4 }];
  const cases = [
    { policy: { type: "ros/exact-time", queueSize: 10 }, alternative: "ros/approximate-epsilon-time", tolerance: "epsilon" },
    { policy: { type: "python/exact-time", queueSize: 10 }, alternative: "python/approximate-time", tolerance: "slop" },
  ];

  for (const c of cases) {
    it(`${c.policy.type}: suggests ${c.alternative} with the tightest ${c.tolerance} that gives its sets`, () => {
      const trace = syntheticTrace(inputs, 20_000);
      const d = diagnose(trace, parseConfig({ slots: 2, policy: c.policy }).policy);
      const alt = d.suggestions.find((s) => s.kind === "alternative" && s.policy.type === c.alternative);
      expect(alt).toBeDefined();
      const ns = parseDuration(alt!.policy[c.tolerance], c.tolerance);
      expect(alt!.tuples).toBeGreaterThan(190);
      // One step tighter, at the precision it is written with, loses sets: an actual run says so.
      const step = durationResolution(ns);
      expect(ns % step).toBe(0);
      const tighter = runTrace(parseConfig({ slots: 2, policy: { ...alt!.policy, [c.tolerance]: ns - step } }).policy, trace);
      expect(tighter.tuples).toBeLessThan(alt!.tuples);
      // The stamps are at most 9 ms apart: a tolerance above that says nothing more.
      expect(ns).toBeGreaterThan(5_000_000);
      expect(ns).toBeLessThanOrEqual(9_100_000);
    });
  }
});

describe("a clock a few hundred ms ahead, against a late input (D8)", () => {
  const policy = { type: "fkie/approximate-time", maxQueueSize: 20, maxAge: null, maxTimespan: "50ms" };
  const diagnosed = (third: Partial<SyntheticInput>) => {
    const trace = syntheticTrace([{ periodMs: 33, latencyMs: 5 }, { periodMs: 100, offsetMs: 3, latencyMs: 1 }, { periodMs: 400, offsetMs: 7, ...third }], 20_000);
    return diagnose(trace, parseConfig({ slots: 3, policy }).policy);
  };

  it("names a clock 300 ms ahead: the input's messages are stamped after they were received", () => {
    const d = diagnosed({ clockOffsetMs: 300, latencyMs: 2 });
    const cause = d.causes.find((c) => c.id === "clock-offset");
    expect(cause?.topic).toBe("/topic2");
    expect(cause?.evidence.offsetNs).toBeGreaterThan(250e6);
    expect(cause?.evidence.offsetNs).toBeLessThan(350e6);
    expect(cause?.message).toMatch(/ahead/);
    expect(cause?.message).toMatch(/stamped 29\d ms \(median\) after the recorder received them/);
    expect(cause?.message).toMatch(/run 29\d ms ahead of the other inputs'/);
    expect(cause?.setsLost).toBeGreaterThan(0);
  });

  it("takes an input 300 ms late for transport, not a clock: its stamps lie before its receive times", () => {
    const d = diagnosed({ latencyMs: 300 });
    expect(d.causes.filter((c) => c.id === "clock-offset")).toEqual([]);
  });
});

describe("python's queueOffset on the slot whose messages complete the sets (rclpy's raw-stamp lookup)", () => {
  // /topic1 is stamped 150 ms after /topic0 for the same instant, and arrives last.
  const inputs: SyntheticInput[] = [{ periodMs: 100, jitterMs: 2 }, { periodMs: 100, offsetMs: 150, jitterMs: 2 }];
  const diagnosed = (queueOffset: string[]) => {
    const trace = syntheticTrace(inputs, 20_000);
    const config = parseConfig({ slots: 2, policy: { type: "python/approximate-time", queueSize: 10, slop: "20ms", queueOffset } });
    return { trace, config, d: diagnose(trace, config.policy) };
  };

  it("names it and moves the same alignment onto the other slot", () => {
    const { trace, config, d } = diagnosed(["0ns", "150ms"]);
    const top = d.causes[0]!;
    expect([top.id, top.topic]).toEqual(["queue-offset", "/topic1"]);
    const rebased = runTrace({ ...config.policy, queueOffset: [-150_000_000, 0] } as typeof config.policy, trace);
    expect(rebased.tuples).toBeGreaterThan(190);
    expect(d.tuples).toBeLessThan(10);
    expect(top.setsLost).toBe(rebased.tuples - d.tuples);
    expect(top.message).toContain("queueOffset [0ns, 150ms] → [-150ms, 0ns]");
    expect(top.message).toMatch(/without the offset/);
    expect(d.suggestions[0]!.policy.queueOffset).toEqual(["-150ms", "0ns"]);
    expect(d.suggestions[0]!.tuples).toBe(rebased.tuples);
    // The suggested config is one the pipeline accepts, and gives what it says.
    expect(runTrace(parseConfig({ slots: 2, policy: d.suggestions[0]!.policy }).policy, trace).tuples).toBe(rebased.tuples);
    // No wider slop: it would pair messages the offset says lie apart.
    expect(d.suggestions.filter((s) => s.kind !== "alternative" && s.changes.some((c) => c.parameter === "slop"))).toEqual([]);
    expect(d.headline).toBe(top.message);
  });

  it("is no cause once the offset is on the other slot", () => {
    const { d } = diagnosed(["-150ms", "0ns"]);
    expect(d.tuples).toBeGreaterThan(190);
    expect(d.causes.filter((c) => c.id === "queue-offset")).toEqual([]);
  });
});

describe("a wider timespan limit that only pairs stamps far apart (mustang's late odometry under python's slop)", () => {
  // /topic1 arrives 200 ms after its stamps; a 10-message queue of the 100 Hz /topic0 covers 100 ms.
  const inputs: SyntheticInput[] = [{ periodMs: 10, jitterMs: 1 }, { periodMs: 100, offsetMs: 2, latencyMs: 200, jitterMs: 1 }];
  const policy = { type: "python/approximate-time", queueSize: 10, slop: "5ms" };

  it("is no cause: the queue is, and the sets a wide slop gives pair stamps farther apart than any lie from their nearest partner", () => {
    const trace = syntheticTrace(inputs, 20_000);
    const config = parseConfig({ slots: 2, policy });
    const d = diagnose(trace, config.policy);
    expect(d.tuples).toBeLessThan(5);
    // What a wide slop alone gives: sets, most of them pairing stamps about 100 ms or more apart.
    const wide = runTrace({ ...config.policy, slop: 300_000_000 } as typeof config.policy, trace);
    expect(wide.tuples).toBeGreaterThan(100);
    expect(wide.timespan!.median).toBeGreaterThan(50_000_000);
    expect(d.causes.filter((c) => c.id === "timespan-limit-too-small")).toEqual([]);
    expect(d.causes[0]!.id).toBe("queue-too-short");
    expect(d.headline.startsWith("/topic1 arrives")).toBe(true);
  });
});

describe("an exact-time policy with an input that has no header (geometry_msgs/Twist on /cmd_vel)", () => {
  const inputs: SyntheticInput[] = [{ periodMs: 20, jitterMs: 2 }, { periodMs: 100, offsetMs: 3, headerlessEvery: 1 }];

  for (const [type, approximate, queue] of [
    ["ros/exact-time", "ros/approximate-time", "queueSize"],
    ["fkie/exact-time", "fkie/approximate-time", "maxQueueSize"],
  ] as const) {
    it(`${type}: the verdict names the header and both changes, with the sets they give together`, () => {
      const trace = syntheticTrace(inputs, 20_000);
      const config = parseConfig({ slots: 2, policy: { type, [queue]: 10 } });
      const d = diagnose(trace, config.policy);
      expect(d.tuples).toBe(0);
      const top = d.causes[0]!;
      expect([top.id, top.topic]).toEqual(["missing-stamps", "/topic1"]);
      // Both changes together, an actual run: the approximate policy on the receive-time stamps.
      const alt = runTrace(parseConfig({ slots: 2, policy: { type: approximate, [queue]: 10 } }).policy, trace, {
        stampOverride: (i) => (trace.kind(i) === "stamped" ? undefined : trace.arrival(i)),
      });
      expect(alt.tuples).toBeGreaterThan(150);
      expect(top.setsLost).toBe(alt.tuples);
      expect(top.message).toContain(`${type} pairs identical stamps only`);
      expect(top.message).toContain(approximate);
      expect(top.message).toContain(`gives ${alt.tuples} sets`);
      expect(d.headline.startsWith(top.message)).toBe(true);
      // The receive-time stamps alone give nothing under an exact-time policy: the one-click fix
      // switches the policy too, to a complete config that gives the counted sets.
      const fix = top.stampFix!;
      expect(fix.stamps).toEqual({ "/topic1": "receive" });
      expect(fix.policy?.type).toBe(approximate);
      expect(fix.policy).toHaveProperty(queue); // complete: every parameter written out
      expect(fix.tuples).toBe(alt.tuples);
      const switched = parseConfig({ slots: 2, policy: fix.policy });
      expect(runTrace(switched.policy, trace, { stampOverride: (i) => (trace.kind(i) === "stamped" ? undefined : trace.arrival(i)) }).tuples).toBe(fix.tuples);
    });
  }
});
