import { describe, expect, it } from "vitest";

import { appliedFixText, fixInForce, stampFixText, type AppliedFix } from "./appliedFix";
import { defaultConfig, type LockstepConfig } from "../settings/panelConfig";

const POLICY = { type: "fkie/approximate-time", maxQueueSize: 20, maxAge: null, maxTimespan: "28ms" };
const FIX: AppliedFix = { change: "maxTimespan 5ms → 28ms", policy: POLICY, predicted: 976, before: 82, events: 16806 };

function config(over: Partial<LockstepConfig>): LockstepConfig {
  return { ...defaultConfig(), inputs: [{ topic: "/imu/data" }, { topic: "/fix" }], ...over };
}

describe("an applied diagnosis fix", () => {
  it("names a cause's stamp sources as the diagnosis tab does, after the policy to switch to when it has one", () => {
    expect(stampFixText({ stamps: { "/fix": "receive" } })).toBe("/fix stamped by receive time");
    expect(stampFixText({ stamps: { "/a": "receive", "/b": "receive" } })).toBe("/a and /b stamped by receive time");
    expect(stampFixText({ stamps: { "/cmd_vel": "receive" }, policy: { type: "ros/approximate-time", queueSize: 10 } })).toBe(
      "ros/approximate-time, with /cmd_vel stamped by receive time",
    );
  });

  it("is in force while the config has its policy, or every stamp source it set", () => {
    expect(fixInForce(FIX, config({ policy: { ...POLICY } }))).toBe(true);
    expect(fixInForce(FIX, config({ policy: { ...POLICY, maxTimespan: "29ms" } }))).toBe(false);
    expect(fixInForce(FIX, config({ policy: { type: "fkie/approximate-time", maxQueueSize: 20 } }))).toBe(false);
    const stamps: AppliedFix = { change: stampFixText({ stamps: { "/fix": "receive" } }), stamps: { "/fix": "receive" }, predicted: 900, before: 0, events: 1000 };
    expect(fixInForce(stamps, config({ inputs: [{ topic: "/imu/data" }, { topic: "/fix", stamp: "receive" }] }))).toBe(true);
    expect(fixInForce(stamps, config({ inputs: [{ topic: "/imu/data" }, { topic: "/fix" }] }))).toBe(false);
    expect(fixInForce(stamps, config({ inputs: [{ topic: "/imu/data", stamp: "receive" }] }))).toBe(false);
  });

  it("with both a policy and stamp sources, is in force while the config has both", () => {
    const policy = { type: "ros/approximate-time", queueSize: 10 };
    const both: AppliedFix = { change: stampFixText({ stamps: { "/cmd_vel": "receive" }, policy }), policy, stamps: { "/cmd_vel": "receive" }, predicted: 941, before: 0, events: 4000 };
    const inputs = [{ topic: "/odom" }, { topic: "/cmd_vel", stamp: "receive" }];
    expect(fixInForce(both, config({ inputs, policy: { ...policy } }))).toBe(true);
    expect(fixInForce(both, config({ inputs, policy: { type: "ros/exact-time", queueSize: 10 } }))).toBe(false);
    expect(fixInForce(both, config({ inputs: [{ topic: "/odom" }, { topic: "/cmd_vel" }], policy: { ...policy } }))).toBe(false);
  });

  it("sets the whole recording's count beside the prediction once its analysis is done", () => {
    const done = { state: "done", messages: 16806, cancelled: false, messagesPerSec: 3000 } as const;
    expect(appliedFixText(FIX, { sets: 976, messages: 16806, whole: done })).toBe(
      "Applied maxTimespan 5ms → 28ms: 976 sets on the whole recording's 16,806 messages (the diagnosis predicted 976 sets on the 16,806 messages it covered, 82 before).",
    );
    // A cancelled analysis did not see the whole recording.
    expect(appliedFixText(FIX, { sets: 400, messages: 7000, whole: { ...done, messages: 7000, cancelled: true } })).toBe(
      "Applied maxTimespan 5ms → 28ms: 400 sets on the 7,000 messages so far (the diagnosis predicted 976 sets on the 16,806 messages it covered, 82 before); analyze the whole recording (above) to compare the same messages.",
    );
  });

  it("before that, gives the count so far and what to do to compare the same messages", () => {
    expect(appliedFixText(FIX, { sets: undefined, messages: 0, whole: { state: "stale", messages: 16806 } })).toBe(
      "Applied maxTimespan 5ms → 28ms: no results yet (the diagnosis predicted 976 sets on the 16,806 messages it covered, 82 before); analyze the whole recording (above) to compare the same messages.",
    );
    expect(appliedFixText(FIX, { sets: 1, messages: 40, whole: { state: "idle" } })).toContain(": 1 set on the 40 messages so far (");
    const running = { state: "running", fraction: 0.5, messages: 8000, abort: new AbortController() } as const;
    expect(appliedFixText(FIX, { sets: 500, messages: 8000, whole: running })).toMatch(/500 sets on the 8,000 messages so far .*; the whole-recording analysis is running\.$/);
  });
});
