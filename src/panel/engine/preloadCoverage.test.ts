import type { Immutable, MessageEvent } from "@foxglove/extension";
import { describe, expect, it } from "vitest";

import { preloadCoverage } from "./preloadCoverage";

function event(topic: string, sec: number): Immutable<MessageEvent> {
  return { topic, schemaName: "x/Y", receiveTime: { sec, nsec: 0 }, message: {} } as unknown as Immutable<MessageEvent>;
}

const range = { start: { sec: 0, nsec: 0 }, end: { sec: 99, nsec: 0 } };

/** allFrames the host kept from an earlier analysis of /fix and /odom, over the whole recording. */
const twoTopics = Array.from({ length: 100 }, (_, i) => event(i % 2 === 0 ? "/fix" : "/odom", i));

describe("preloadCoverage (which inputs the host's allFrames holds)", () => {
  it("is not complete while an input added since the last analysis has no message in allFrames", () => {
    const c = preloadCoverage(twoTopics, ["/fix", "/odom", "/imu"], range);
    expect(c.complete).toBe(false);
    expect(c.missing).toEqual(["/imu"]);
  });

  it("is not complete while an input's messages reach only part of the recording (blocks still loading)", () => {
    const partial = [...twoTopics, ...Array.from({ length: 10 }, (_, i) => event("/imu", i))].sort((a, b) => a.receiveTime.sec - b.receiveTime.sec);
    const c = preloadCoverage(partial, ["/fix", "/odom", "/imu"], range);
    expect(c.complete).toBe(false);
    expect(c.missing).toEqual([]);
  });

  it("is not complete on the host's first block, one message per input (its period is not known yet)", () => {
    // rosbag2's talker: 10 messages per topic over 4.5 s, allFrames first holds one of each.
    const first = [event("/rosout", 0), event("/topic", 0)];
    expect(preloadCoverage(first, ["/rosout", "/topic"], { start: { sec: 0, nsec: 0 }, end: { sec: 4, nsec: 0 } }).complete).toBe(false);
  });

  it("is not complete while the inputs' messages end a few periods short of the end (talker: 8 of 10 loaded)", () => {
    const eight = Array.from({ length: 8 }, (_, i) => [event("/rosout", i / 2), event("/topic", i / 2)]).flat();
    const talker = { start: { sec: 0, nsec: 0 }, end: { sec: 4, nsec: 500_000_000 } };
    expect(preloadCoverage(eight, ["/rosout", "/topic"], talker).complete).toBe(false);
  });

  it("is complete once every input reaches the end of the recording", () => {
    const all = [...twoTopics, ...Array.from({ length: 100 }, (_, i) => event("/imu", i))];
    expect(preloadCoverage(all, ["/fix", "/odom", "/imu"], range)).toEqual({ complete: true, missing: [] });
  });
});
