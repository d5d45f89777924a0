import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

import { AnalysisEngine } from "./AnalysisEngine";
import type { EngineInput } from "./engineTypes";
import { TieOrderWatch } from "./tieOrder";
import { openRecordingFile } from "../../recording/node";
import { HAS_SHARED_DATA, sharedRecording } from "../../recording/testing/paths";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const JACKAL = JSON.parse(readFileSync(`${ROOT}config/jackal-3d.json`, "utf8")) as { inputs: { topic: string }[]; fusion?: unknown };
delete JACKAL.fusion;

/** jackal-sim-2014's input messages in file order. */
const file: EngineInput[] = [];

beforeAll(async () => {
  // A user's clone has no ../shared: the tests below are skipped then.
  if (!HAS_SHARED_DATA) {
    return;
  }
  const rec = await openRecordingFile(sharedRecording("jackal-sim-2014.bag"));
  for await (const m of rec.messages()) {
    if (JACKAL.inputs.some((i) => i.topic === m.topic)) {
      file.push({ seq: file.length, topic: m.topic, schemaName: m.schemaName, receiveTime: m.receiveTime, message: m.message });
    }
  }
  await rec.close();
});

const ns = (e: EngineInput): number => e.receiveTime.sec * 1e9 + e.receiveTime.nsec;

/**
 * The order Foxglove Studio 1.76 delivered jackal's allFrames in (measured: 163 of the 359 pairs of
 * odometry messages sharing a receive time came in reverse file order): here every other such pair.
 */
function hostOrder(events: readonly EngineInput[]): EngineInput[] {
  const out = [...events];
  const last = new Map<string, number>();
  let pairs = 0;
  for (let i = 0; i < out.length; i++) {
    const e = out[i]!;
    const j = last.get(e.topic);
    if (j != undefined && ns(out[j]!) === ns(e) && pairs++ % 2 === 0) {
      out[i] = out[j]!;
      out[j] = e;
    }
    last.set(e.topic, i);
  }
  return out;
}

function analyze(events: readonly EngineInput[]): ReturnType<AnalysisEngine["takeDelta"]> {
  const engine = new AnalysisEngine(JACKAL);
  engine.ingest(events);
  engine.finish();
  return engine.takeDelta();
}

describe.skipIf(!HAS_SHARED_DATA)("messages sharing a receive time, delivered out of file order (needs ../shared/data)", () => {
  it("in file order, jackal gives the CLI's 3060 sets, no drops, and no word about delivery order", () => {
    const d = analyze(file);
    expect(d.stats.tuples).toBe(3060);
    expect(d.stats.drops).toEqual({});
    expect(d.hints.join(" ")).not.toMatch(/receive time/);
  });

  it("in the host's order the resets are blamed on the host's tie order, naming the ties and that the CLI reads file order", () => {
    const d = analyze(hostOrder(file));
    expect(d.stats.drops["out-of-order-reset"]).toBeGreaterThan(0);
    const hint = d.hints.find((h) => h.includes("same receive time"));
    expect(hint).toMatch(/\/jackal_velocity_controller\/odom/);
    expect(hint).toMatch(/file order/);
    expect(hint).toMatch(/lockstep analyze/);
    expect(d.hints[0]).toBe(hint);
    // Every reset came from a swapped tie: no advice to look for clock jumps.
    expect(d.hints.filter((h) => /clock jump/i.test(h))).toEqual([hint]);
    const resets = d.drops.filter((r) => r.reason === "out-of-order-reset");
    expect(resets.length).toBeGreaterThan(0);
    for (const r of resets) {
      expect(r.detail).toMatch(/same receive time/);
    }
  });
});

describe.skipIf(!HAS_SHARED_DATA)("a policy that does not reset, on ties delivered out of file order (needs ../shared/data)", () => {
  // The fuse tutorial's /odom (sim time: receive times on whole milliseconds, many shared) with
  // /cmd_vel, which has no header, by its receive time, under ROS's approximate time.
  const config = { inputs: [{ topic: "/odom" }, { topic: "/cmd_vel", stamp: "receive" }], policy: { type: "ros/approximate-time", queueSize: 10 } };
  const events: EngineInput[] = [];
  beforeAll(async () => {
    const rec = await openRecordingFile(sharedRecording("fuse-tutorial-turtlebot3.bag"));
    for await (const m of rec.messages({ topics: ["/odom", "/cmd_vel"] })) {
      events.push({ seq: events.length, topic: m.topic, schemaName: m.schemaName, receiveTime: m.receiveTime, message: m.message });
    }
    await rec.close();
  });
  const run = (input: readonly EngineInput[], withConfig: unknown = config): ReturnType<AnalysisEngine["takeDelta"]> => {
    const engine = new AnalysisEngine(withConfig);
    engine.ingest(input);
    engine.finish();
    return engine.takeDelta();
  };

  it("in file order: the CLI's 941 sets and no word about delivery order", () => {
    const d = run(events);
    expect(d.stats.tuples).toBe(941);
    expect(d.hints.join(" ")).not.toMatch(/receive time in another order/);
  });

  it("in the host's order: other sets, no reset, and the hint says why they can differ from the CLI's", () => {
    const d = run(hostOrder(events));
    expect(d.stats.drops["out-of-order-reset"] ?? 0).toBe(0);
    expect(d.stats.tuples).not.toBe(941);
    const hint = d.hints[0]!;
    expect(hint).toMatch(/^The host delivered messages with the same receive time in another order than the file: on \/odom \(\d+ of \d+ pairs/);
    expect(hint).toMatch(/its sets can differ from those of `lockstep analyze`, which reads the recording in file order\.$/);
    expect(hint).not.toMatch(/reset/);
  });

  it("in the host's order with /odom stamped by receive time too: its ties have equal stamps, no hint", () => {
    const d = run(hostOrder(events), { ...config, inputs: [{ topic: "/odom", stamp: "receive" }, { topic: "/cmd_vel", stamp: "receive" }] });
    expect(d.stats.tuples).toBeGreaterThan(0);
    expect(d.hints.join(" ")).not.toMatch(/another order than the file/);
  });
});

describe("receive times at epoch scale", () => {
  const at = (nsec: number, stampNsec: number): EngineInput => ({
    seq: nsec,
    topic: "/odom",
    schemaName: "nav_msgs/Odometry",
    receiveTime: { sec: 1_700_000_000, nsec },
    message: { header: { stamp: { sec: 1_700_000_000, nsec: stampNsec } } },
  });

  it("counts as ties only receive times that are the same to the nanosecond", () => {
    const watch = new TieOrderWatch();
    // 10 ns apart: one time as a double's nanoseconds, two times as ROS reads them.
    expect(watch.observe(at(10, 500))).toBe(false);
    expect(watch.observe(at(20, 400))).toBe(false);
    expect(watch.hint("resets")).toBeUndefined();
    expect(watch.observe(at(20, 300))).toBe(true);
    expect(watch.hint("resets")).toMatch(/\/odom \(1 of 1 pairs sharing a receive time\)/);
  });

  it("reads each input's stamps from its stamp source: by receive time, a tie never goes backwards", () => {
    const watch = new TieOrderWatch([{ topic: "/odom", stamp: "receive" }]);
    watch.observe(at(10, 30));
    expect(watch.observe(at(10, 20))).toBe(false);
    expect(watch.hint("other-sets")).toBeUndefined();
  });

  it("sees a stamp going back by a few nanoseconds within a tie", () => {
    const watch = new TieOrderWatch();
    watch.observe(at(10, 30));
    expect(watch.observe(at(10, 20))).toBe(true);
  });
});
