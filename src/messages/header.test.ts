import { describe, expect, it } from "vitest";

import { childFrameIdOf, frameIdOf, readStamp, stampOf } from "./header";

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
