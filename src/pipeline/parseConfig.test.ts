import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { ConfigError, type ConfigIssue } from "./ConfigError";
import { POLICY_TYPES } from "./config";
import { parseConfig, parseConfigText } from "./parseConfig";

function issuesOf(json: unknown): ConfigIssue[] {
  try {
    parseConfig(json);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return [...(err as ConfigError).issues];
  }
  throw new Error("expected a ConfigError");
}

function pathsOf(json: unknown): string[] {
  return issuesOf(json).map((i) => i.path);
}

const fkie = (extra: object): unknown => ({
  slots: 2,
  policy: { type: "fkie/approximate-time", ...extra },
});

describe("parseConfig: valid configs", () => {
  it("parses DESIGN §3.2's example, converting durations to exact ns", () => {
    const example = {
      inputs: [{ topic: "/imu/data" }, { topic: "/husky_velocity_controller/odom" }],
      policy: {
        type: "fkie/approximate-time",
        maxQueueSize: 10,
        maxAge: null,
        maxTimespan: "50ms",
        minDistance: ["15ms", "45ms"],
      },
      buffer: { policy: "queue", maxQueueSize: 100 },
      transforms: [
        {
          parent: "base_link",
          child: "imu_link",
          translation: [0, -0.3, 0.52],
          rpy: [1.570796327, 0, -1.570796327],
        },
      ],
      fusion: { "...": "sensor models, motion model, optimizer, as fuse configures them" },
      publish: { enabled: false, namespace: "/lockstep" },
    };
    const config = parseConfig(structuredClone(example));
    // Everything but the durations comes out as written, plus the slot count.
    expect(config).toEqual({
      ...example,
      slots: 2,
      policy: { ...example.policy, maxTimespan: 50_000_000, minDistance: [15_000_000, 45_000_000] },
    });
    // Plain data: survives a JSON round trip and parses to the same thing again.
    expect(parseConfig(JSON.parse(JSON.stringify(config)))).toEqual(config);
  });

  it("accepts the replay form and fills only the publish defaults", () => {
    expect(parseConfig({ slots: 3, policy: { type: "fkie/fifo" } })).toEqual({
      slots: 3,
      policy: { type: "fkie/fifo" },
      publish: { enabled: false, namespace: "/lockstep" },
    });
  });

  it("accepts every policy type of the table with all its parameters", () => {
    const all: Record<string, object> = {
      "fkie/approximate-time": {
        maxQueueSize: 0,
        maxAge: "1s",
        maxTimespan: null,
        minDistance: [0, "1ms"],
        ros1OutOfOrder: true,
      },
      "fkie/exact-time": { maxQueueSize: 5, maxAge: 250 },
      "fkie/fifo": { maxQueueSize: 0 },
      "fkie/latch": { trigger: "any" },
      "ros/approximate-time": {
        queueSize: 10,
        agePenalty: 0,
        interMessageLowerBound: ["10ms", "0"],
        maxIntervalDuration: "1.5s",
      },
      "ros/exact-time": { queueSize: 0 },
      "ros/approximate-epsilon-time": { queueSize: 3, epsilon: "1.5s" },
      "ros/latest-time": {
        rateConfig: { alphaRate: 0.9, alphaError: 0.3, margin: 10 },
        fixFirstArrivalOrder: true,
      },
      "python/approximate-time": {
        queueSize: 1,
        slop: "0.1s",
        allowHeaderless: true,
        queueOffset: ["-5ms", 0],
        syncArrivalTime: false,
      },
      "python/exact-time": { queueSize: 1 },
    };
    expect(Object.keys(all).sort()).toEqual([...POLICY_TYPES].sort());
    for (const [type, params] of Object.entries(all)) {
      expect(parseConfig({ slots: 2, policy: { type, ...params } }).policy.type).toBe(type);
    }
    expect(
      parseConfig({
        slots: 2,
        policy: { type: "python/approximate-time", ...all["python/approximate-time"] },
      }).policy,
    ).toEqual({
      type: "python/approximate-time",
      queueSize: 1,
      slop: 100_000_000,
      allowHeaderless: true,
      queueOffset: [-5_000_000, 0],
      syncArrivalTime: false,
    });
    expect(
      parseConfig({
        slots: 2,
        policy: { type: "ros/latest-time", rateConfig: [{ margin: 2 }, {}] },
      }).policy,
    ).toEqual({ type: "ros/latest-time", rateConfig: [{ margin: 2 }, {}] });
  });

  it("passes the ROS 1 / ROS 2 library options through, absent when not given", () => {
    expect(parseConfig(fkie({ ros1OutOfOrder: true })).policy).toEqual({
      type: "fkie/approximate-time",
      ros1OutOfOrder: true,
    });
    expect(parseConfig(fkie({})).policy).not.toHaveProperty("ros1OutOfOrder");
    expect(
      parseConfig({ slots: 3, policy: { type: "ros/latest-time", fixFirstArrivalOrder: false } })
        .policy,
    ).toEqual({ type: "ros/latest-time", fixFirstArrivalOrder: false });
  });

  it("keeps durations exact far beyond float precision of seconds", () => {
    const policy = parseConfig(
      fkie({ maxAge: "1.000000001s", maxTimespan: "9007199254740991" }),
    ).policy;
    expect(policy).toMatchObject({ maxAge: 1_000_000_001, maxTimespan: 9007199254740991 });
  });

  it("leaves absent parameters absent (library default) and keeps null (unlimited)", () => {
    expect(parseConfig(fkie({ maxAge: null })).policy).toEqual({
      type: "fkie/approximate-time",
      maxAge: null,
    });
  });

  it("does not mutate its input", () => {
    const input = fkie({ maxTimespan: "50ms" });
    const copy = structuredClone(input);
    parseConfig(input);
    expect(input).toEqual(copy);
  });
});

describe("parseConfig: rejected configs name the field", () => {
  it("a duration with a space, with the fix", () => {
    expect(issuesOf(fkie({ maxTimespan: "50 ms" }))).toEqual([
      { path: "/policy/maxTimespan", message: '"50 ms" is not a duration; use "50ms"' },
    ]);
    expect(() => parseConfig(fkie({ maxTimespan: "50 ms" }))).toThrow(
      '/policy/maxTimespan: "50 ms" is not a duration; use "50ms"',
    );
  });

  it("other malformed, inexact, negative or too long durations", () => {
    expect(issuesOf(fkie({ maxAge: "fast" }))[0]!.message).toMatch(
      /^"fast" is not a duration; use a number with a unit/,
    );
    expect(issuesOf(fkie({ maxAge: 1.5 }))).toEqual([
      {
        path: "/policy/maxAge",
        message:
          '1.5 is not a duration; use a number with a unit ("250ns", "40us", "33ms", "1.5s") or integer nanoseconds',
      },
    ]);
    expect(issuesOf(fkie({ maxAge: -1 }))).toEqual([
      { path: "/policy/maxAge", message: "-1 is negative; a duration here must be >= 0" },
    ]);
    // Written as a string, the same: never a suggestion ("use \"-1s\"") the field rejects again.
    expect(issuesOf(fkie({ maxAge: "-1s" }))).toEqual([
      { path: "/policy/maxAge", message: '"-1s" is negative; a duration here must be >= 0' },
    ]);
    expect(issuesOf(fkie({ maxAge: "- 1 s" }))).toEqual([
      { path: "/policy/maxAge", message: '"- 1 s" is negative; a duration here must be >= 0' },
    ]);
    expect(issuesOf(fkie({ maxAge: "1.0000000001s" }))).toEqual([
      { path: "/policy/maxAge", message: '"1.0000000001s" is not a whole number of nanoseconds' },
    ]);
    expect(pathsOf(fkie({ maxAge: "200000000s" }))).toEqual(["/policy/maxAge"]);
    expect(pathsOf(fkie({ minDistance: ["1ms", "2 ms"] }))).toEqual(["/policy/minDistance/1"]);
    expect(
      pathsOf({
        slots: 2,
        policy: { type: "ros/approximate-epsilon-time", queueSize: 1, epsilon: null },
      }),
    ).toEqual(["/policy/epsilon"]);
  });

  it("unknown parameters of the chosen policy, with a suggestion", () => {
    expect(issuesOf(fkie({ maxAgee: "1s" }))).toEqual([
      {
        path: "/policy/maxAgee",
        message:
          '"fkie/approximate-time" has no parameter "maxAgee"; did you mean "maxAge"? its parameters are maxQueueSize, maxAge, maxTimespan, minDistance, ros1OutOfOrder',
      },
    ]);
    // A parameter of a different policy type is unknown here.
    expect(pathsOf({ slots: 2, policy: { type: "fkie/fifo", queueSize: 3 } })).toEqual([
      "/policy/queueSize",
    ]);
  });

  it("unknown policy types, and a missing type", () => {
    const [issue] = issuesOf({ slots: 2, policy: { type: "fkie/approximate_time" } });
    expect(issue!.path).toBe("/policy/type");
    expect(issue!.message).toMatch(
      /^unknown policy "fkie\/approximate_time"; did you mean "fkie\/approximate-time"\? use one of fkie\/approximate-time, /,
    );
    expect(issuesOf({ slots: 2, policy: {} })).toEqual([
      { path: "/policy/type", message: `is missing; use one of ${POLICY_TYPES.join(", ")}` },
    ]);
    expect(pathsOf({ slots: 2, policy: { type: 3 } })).toEqual(["/policy/type"]);
  });

  it("unknown top-level and nested keys", () => {
    expect(issuesOf({ slots: 2, policy: { type: "fkie/fifo" }, polcy: {} })).toEqual([
      {
        path: "/polcy",
        message:
          'unknown key "polcy"; did you mean "policy"? allowed here: $schema, description, inputs, slots, policy, buffer, transforms, fusion, publish, view',
      },
    ]);
    expect(
      pathsOf({ inputs: [{ topic: "/a", type: "x" }], policy: { type: "fkie/fifo" } }),
    ).toEqual(["/inputs/0/type"]);
    expect(pathsOf({ slots: 1, policy: { type: "fkie/fifo" }, publish: { enable: true } })).toEqual(
      ["/publish/enable"],
    );
  });

  it("accepts the panel's view choices and checks them like every other section", () => {
    const view = { tab: "trajectory", compare: "fkie/exact-time", rawPlacement: "start-aligned" };
    const parsed = parseConfig({ slots: 1, policy: { type: "fkie/fifo" }, view });
    expect(parsed).not.toHaveProperty("view");
    expect(parsed.policy.type).toBe("fkie/fifo");
    expect(pathsOf({ slots: 1, policy: { type: "fkie/fifo" }, view: { ...view, rawPlacement: "sideways" } })).toEqual(["/view/rawPlacement"]);
    expect(pathsOf({ slots: 1, policy: { type: "fkie/fifo" }, view: { ...view, compare: "ros/nearest" } })).toEqual(["/view/compare"]);
    expect(pathsOf({ slots: 1, policy: { type: "fkie/fifo" }, view: { ...view, tabs: "x" } })).toEqual(["/view/tabs"]);
    expect(pathsOf({ slots: 1, policy: { type: "fkie/fifo" }, view: { tab: "" } })).toEqual(["/view/tab"]);
  });

  it("wrong types and out-of-range values", () => {
    expect(issuesOf(fkie({ maxQueueSize: "10" }))).toEqual([
      { path: "/policy/maxQueueSize", message: '"10" is a string; expected integer' },
    ]);
    expect(issuesOf(fkie({ maxQueueSize: -1 }))).toEqual([
      { path: "/policy/maxQueueSize", message: "-1 is out of range; it must be >= 0" },
    ]);
    expect(pathsOf({ slots: 2, policy: { type: "ros/approximate-time", queueSize: 0 } })).toEqual([
      "/policy/queueSize",
    ]);
    expect(pathsOf({ slots: 2, policy: { type: "ros/approximate-time" } })).toEqual([
      "/policy/queueSize",
    ]);
    expect(
      pathsOf({ slots: 2, policy: { type: "ros/latest-time", rateConfig: { alphaRate: 0 } } }),
    ).toEqual(["/policy/rateConfig/alphaRate"]);
    expect(issuesOf(fkie({ ros1OutOfOrder: "yes" }))).toEqual([
      { path: "/policy/ros1OutOfOrder", message: '"yes" is a string; expected boolean' },
    ]);
    expect(
      issuesOf({ slots: 2, policy: { type: "ros/latest-time", fixFirstArrivalOrder: 1 } }),
    ).toEqual([
      { path: "/policy/fixFirstArrivalOrder", message: "1 is a number; expected boolean" },
    ]);
    // Each option belongs to its own policy type only.
    expect(
      pathsOf({ slots: 2, policy: { type: "ros/latest-time", ros1OutOfOrder: true } }),
    ).toEqual(["/policy/ros1OutOfOrder"]);
    expect(pathsOf(fkie({ fixFirstArrivalOrder: true }))).toEqual(["/policy/fixFirstArrivalOrder"]);
    expect(pathsOf({ slots: 0, policy: { type: "fkie/fifo" } })).toEqual(["/slots"]);
    expect(pathsOf({ slots: 1.5, policy: { type: "fkie/fifo" } })).toEqual(["/slots"]);
    expect(
      pathsOf({ slots: 1, policy: { type: "fkie/fifo" }, buffer: { policy: "keep" } }),
    ).toEqual(["/buffer/policy"]);
    expect(
      pathsOf({ slots: 1, policy: { type: "fkie/fifo" }, publish: { namespace: "lockstep" } }),
    ).toEqual(["/publish/namespace"]);
    expect(pathsOf({ inputs: [], policy: { type: "fkie/fifo" } })).toEqual(["/inputs"]);
    expect(pathsOf({ inputs: [{ topic: "" }], policy: { type: "fkie/fifo" } })).toEqual([
      "/inputs/0/topic",
    ]);
  });

  it("per-slot arrays must have one entry per input", () => {
    expect(issuesOf(fkie({ minDistance: ["1ms"] }))).toEqual([
      {
        path: "/policy/minDistance",
        message:
          "has 1 entries but the pipeline has 2 inputs; give one value per input, in slot order",
      },
    ]);
    expect(
      pathsOf({
        inputs: [{ topic: "/a" }],
        policy: { type: "ros/approximate-time", queueSize: 2, interMessageLowerBound: [0, 0] },
      }),
    ).toEqual(["/policy/interMessageLowerBound"]);
    expect(
      pathsOf({
        slots: 3,
        policy: { type: "python/approximate-time", queueSize: 1, slop: 1, queueOffset: [0] },
      }),
    ).toEqual(["/policy/queueOffset"]);
    expect(
      pathsOf({ slots: 3, policy: { type: "ros/latest-time", rateConfig: [{}, {}] } }),
    ).toEqual(["/policy/rateConfig"]);
  });

  it('latch trigger must be a slot or "any"', () => {
    expect(issuesOf({ slots: 2, policy: { type: "fkie/latch", trigger: 2 } })).toEqual([
      {
        path: "/policy/trigger",
        message: 'slot 2 does not exist (the policy has 2 slots: 0..1); use a slot index or "any"',
      },
    ]);
    expect(issuesOf({ slots: 2, policy: { type: "fkie/latch", trigger: "all" } })).toEqual([
      { path: "/policy/trigger", message: '"all" is not a slot; use a slot index or "any"' },
    ]);
    expect(pathsOf({ slots: 2, policy: { type: "fkie/latch", trigger: -1 } })).toEqual([
      "/policy/trigger",
    ]);
  });

  it("needs inputs or slots, consistent with each other", () => {
    expect(pathsOf({ policy: { type: "fkie/fifo" } })).toEqual(["/inputs"]);
    expect(
      issuesOf({
        slots: 3,
        inputs: [{ topic: "/a" }, { topic: "/b" }],
        policy: { type: "fkie/fifo" },
      }),
    ).toEqual([
      { path: "/slots", message: '3 does not match the 2 inputs; remove "slots" or set it to 2' },
    ]);
    expect(pathsOf({ slots: 1 })).toEqual(["/policy"]);
    expect(pathsOf([])).toEqual(["/"]);
    expect(pathsOf(null)).toEqual(["/"]);
  });

  it("transforms: vector sizes, one rotation, real frames and quaternions", () => {
    const t = (extra: object): unknown => ({
      slots: 1,
      policy: { type: "fkie/fifo" },
      transforms: [{ parent: "base_link", child: "imu", translation: [0, 0, 0], ...extra }],
    });
    expect(parseConfig(t({ quaternion: [0, 0, 0, 2] })).transforms).toEqual([
      { parent: "base_link", child: "imu", translation: [0, 0, 0], quaternion: [0, 0, 0, 2] },
    ]);
    expect(issuesOf(t({ translation: [1, 2] }))).toEqual([
      { path: "/transforms/0/translation", message: "has 2 entries; it needs exactly 3 numbers" },
    ]);
    expect(issuesOf(t({ rpy: [0, 0, 0], quaternion: [0, 0, 0, 1] }))).toEqual([
      {
        path: "/transforms/0",
        message: 'gives both "rpy" and "quaternion"; give only one rotation',
      },
    ]);
    expect(pathsOf(t({ quaternion: [0, 0, 0, 0] }))).toEqual(["/transforms/0/quaternion"]);
    expect(pathsOf(t({ child: "base_link" }))).toEqual(["/transforms/0/child"]);
    expect(pathsOf(t({ rpy: [0, "x", 0] }))).toEqual(["/transforms/0/rpy/1"]);
  });

  it("fusion accepts any object but must be an object", () => {
    expect(
      parseConfig({
        slots: 1,
        policy: { type: "fkie/fifo" },
        fusion: { anything: [1, { deep: true }] },
      }).fusion,
    ).toEqual({
      anything: [1, { deep: true }],
    });
    expect(pathsOf({ slots: 1, policy: { type: "fkie/fifo" }, fusion: [] })).toEqual(["/fusion"]);
  });

  it("reports every offending field at once", () => {
    expect(pathsOf(fkie({ maxTimespan: "50 ms", maxQueueSize: -2, bogus: 1 })).sort()).toEqual([
      "/policy/bogus",
      "/policy/maxQueueSize",
      "/policy/maxTimespan",
    ]);
  });
});

describe("parseConfigText", () => {
  it("parses JSON text", () => {
    expect(parseConfigText('{"slots": 2, "policy": {"type": "fkie/fifo"}}').slots).toBe(2);
  });
  it("names the line and column of a JSON syntax error", () => {
    const [issue] = (() => {
      try {
        parseConfigText('{"slots": 2,\n "policy": {"type": "fkie/fifo",}}');
      } catch (err) {
        return (err as ConfigError).issues;
      }
      return [];
    })();
    expect(issue!.path).toBe("/");
    expect(issue!.message).toMatch(/^not valid JSON \(line 2, column \d+\): /);
  });
});

describe("the presets in config/", () => {
  const dir = join(__dirname, "..", "..", "config");
  const presets = readdirSync(dir).filter(
    (f) => f.endsWith(".json") && f !== "pipeline.schema.json",
  );

  it("are all valid pipeline configs", () => {
    expect(presets.length).toBeGreaterThan(0);
    for (const file of presets) {
      const config = parseConfigText(readFileSync(join(dir, file), "utf8"));
      expect(config.slots, file).toBe(config.inputs?.length);
    }
  });
});
