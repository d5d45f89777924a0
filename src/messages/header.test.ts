import { describe, expect, it } from "vitest";

import { childFrameIdOf, frameIdOf, readHeader, readStamp, stampOf } from "./header";
import { TimeBase } from "../time";

describe("readStamp", () => {
  it("reads ROS 1, ROS 2 and Foxglove stamps without copying", () => {
    const ros1 = { header: { seq: 1, stamp: { sec: 5, nsec: 7 }, frame_id: "imu_link" } };
    const ros2 = { header: { stamp: { sec: 5, nanosec: 7 }, frame_id: "base" } };
    const fox = { timestamp: { sec: 9, nsec: 1 }, frame_id: "map" };
    expect(readStamp(ros1)).toBe(ros1.header.stamp);
    expect(readStamp(ros2)).toBe(ros2.header.stamp);
    expect(readStamp(fox)).toBe(fox.timestamp);
    expect(frameIdOf(ros1)).toBe("imu_link");
    expect(frameIdOf(ros2)).toBe("base");
    expect(frameIdOf(fox)).toBe("map");
  });

  it("names headerless and zero-stamp messages instead of crashing", () => {
    for (const m of [undefined, null, 3, "x", {}, { header: {} }, { header: { stamp: { sec: "1", nsec: 0 } } }, { linear: { x: 1 } }]) {
      expect(readStamp(m)).toBe("no-header");
      expect(stampOf(m)).toBeUndefined();
    }
    expect(readStamp({ header: { stamp: { sec: 0, nsec: 0 } } })).toBe("zero-stamp");
    expect(readStamp({ header: { stamp: { sec: 0, nanosec: 0 } } })).toBe("zero-stamp");
    expect(readStamp({ header: { stamp: { sec: 0, nsec: 1 } } })).toEqual({ sec: 0, nsec: 1 });
  });

  it("reads frame ids only when they are strings", () => {
    expect(frameIdOf({ header: { frame_id: "" } })).toBe("");
    expect(frameIdOf({ header: { frame_id: 3 } })).toBeUndefined();
    expect(frameIdOf(null)).toBeUndefined();
    expect(childFrameIdOf({ child_frame_id: "base_link" })).toBe("base_link");
    expect(childFrameIdOf({})).toBeUndefined();
  });
});

describe("readHeader", () => {
  const base = TimeBase.forFirstSecNsec(1_700_000_000, 0);

  it("gives the stamp on the base and the frame, or the same reason the pipeline's inputs give", () => {
    expect(readHeader({ header: { stamp: { sec: 1_700_000_001, nsec: 5 }, frame_id: "imu" } }, base)).toEqual({ stamp: 1_000_000_005, frameId: "imu" });
    expect(readHeader({ header: { stamp: { sec: 1_700_000_001, nanosec: 5 } } }, base)).toEqual({ stamp: 1_000_000_005, frameId: "" });
    expect(readHeader({ linear: { x: 1 } }, base)).toBe("no-header");
    expect(readHeader({ header: { stamp: { sec: 0, nsec: 0 } } }, base)).toBe("zero-stamp");
    // Not a time, or not on the base's clock: invalid, as the pipeline names its inputs' (not "zero").
    expect(readHeader({ header: { stamp: { sec: 1_700_000_001, nsec: 1_000_000_000 } } }, base)).toBe("invalid-stamp");
    expect(readHeader({ header: { stamp: { sec: 1_700_000_001, nsec: -1 } } }, base)).toBe("invalid-stamp");
    expect(readHeader({ header: { stamp: { sec: 5, nsec: 0 } } }, base)).toBe("invalid-stamp");
  });
});
