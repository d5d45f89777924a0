import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

import { AnalysisEngine } from "./AnalysisEngine";
import type { EngineInput } from "./engineTypes";
import { recordingEvents } from "./testing";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const BAG = [`${ROOT}samples/husky-2015.bag`, `${ROOT}../shared/data/husky-2015.bag`].find((p) => existsSync(p))!;
const FIX_ODOM = { inputs: [{ topic: "/fix" }, { topic: "/husky_velocity_controller/odom" }], policy: { type: "fkie/approximate-time" } };
const HUSKY = JSON.parse(readFileSync(`${ROOT}config/husky.json`, "utf8")) as { inputs: { topic: string }[]; fusion?: unknown };
delete HUSKY.fusion;

let events: EngineInput[] = [];

beforeAll(async () => {
  events = await recordingEvents(BAG);
});

/** A whole-recording analysis as the panel runs it: every message, then finish. */
function analyzeAll(engine: AnalysisEngine): void {
  for (let i = 0; i < events.length; i += 2000) {
    engine.ingest(events.slice(i, i + 2000));
  }
  engine.finish();
}

describe("the compare column runs over the same messages as the main result", () => {
  it("a policy picked after a whole-recording analysis is run over the whole recording (the same policy gives the same numbers)", () => {
    const engine = new AnalysisEngine(FIX_ODOM);
    analyzeAll(engine);
    engine.setCompare({ type: "fkie/approximate-time" });
    const d = engine.takeDelta();
    expect(d.stats.tuples).toBe(989);
    expect(d.compare?.tuples).toBe(989);
    expect(d.compare?.drops).toEqual(d.stats.drops);
    expect(d.compare?.topics.map((t) => [t.messages, t.matched, t.dropped])).toEqual(d.stats.topics.map((t) => [t.messages, t.matched, t.dropped]));
  });

  it("a policy picked afterwards gives what it gives when it ran from the first message", () => {
    for (const policy of [{ type: "ros/latest-time" }, { type: "ros/approximate-time", queueSize: 10 }, { type: "ros/exact-time", queueSize: 10 }]) {
      const fromStart = new AnalysisEngine(HUSKY, policy);
      analyzeAll(fromStart);
      const expected = fromStart.takeDelta().compare!;
      const later = new AnalysisEngine(HUSKY);
      analyzeAll(later);
      later.setCompare(policy);
      const got = later.takeDelta().compare!;
      expect({ policy: policy.type, tuples: got.tuples, drops: got.drops }).toEqual({ policy: policy.type, tuples: expected.tuples, drops: expected.drops });
      expect(got.topics.map((t) => [t.messages, t.matched, t.dropped])).toEqual(expected.topics.map((t) => [t.messages, t.matched, t.dropped]));
      expect(got.timespan?.max).toBe(expected.timespan?.max);
    }
  });

  it("a compare policy picked during playback also covers the messages before it was picked, and keeps up with later ones", () => {
    const policy = { type: "ros/approximate-time", queueSize: 10 };
    const fromStart = new AnalysisEngine(HUSKY, policy);
    const later = new AnalysisEngine(HUSKY);
    const half = Math.floor(events.length / 2);
    fromStart.ingest(events.slice(0, half));
    later.ingest(events.slice(0, half));
    later.setCompare(policy);
    fromStart.ingest(events.slice(half));
    later.ingest(events.slice(half));
    expect(later.takeDelta().compare?.tuples).toBe(fromStart.takeDelta().compare?.tuples);
  });

  it("an invalid compare policy is reported in the compare column, and the main analysis still runs", () => {
    const engine = new AnalysisEngine(FIX_ODOM, { type: "python/approximate-time" });
    analyzeAll(engine);
    const d = engine.takeDelta();
    expect(d.stats.tuples).toBe(989);
    expect(d.compare).toBeUndefined();
    expect(d.compareError).toMatch(/slop|queueSize/);
    engine.setCompare({ type: "ros/latest-time" });
    expect(engine.takeDelta().compareError).toBeUndefined();
    engine.setCompare({ type: "python/approximate-time" });
    expect(engine.takeDelta().compareError).toMatch(/slop|queueSize/);
  });
});
