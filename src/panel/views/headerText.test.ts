import { describe, expect, it } from "vitest";

import { analysisDoneText, headerNotices } from "./headerText";
import type { LockstepConfig } from "../settings/panelConfig";

describe("header text", () => {
  it("marks whole-recording results as of the previous settings while the settings are invalid", () => {
    expect(analysisDoneText({ cancelled: false, messages: 120 }, { valid: true })).toBe("whole recording analyzed (120 messages)");
    const stale = analysisDoneText({ cancelled: false, messages: 120 }, { valid: false });
    expect(stale).toMatch(/previous settings/);
    expect(stale).not.toMatch(/^whole recording analyzed \(/);
  });

  it("names each input topic missing from the data source, with the likely one, even when the config is valid", () => {
    const config: LockstepConfig = { inputs: [{ topic: "/odom" }, { topic: "/imu" }], policy: { type: "fkie/approximate-time" } };
    const notices = headerNotices(config, [], ["/fix", "/husky_velocity_controller/odom", "/imu/data"]);
    expect(notices.missing).toEqual([
      "/odom is not in this data source; did you mean /husky_velocity_controller/odom?",
      expect.stringMatching(/^\/imu is not in this data source; (did you mean \/imu\/data\?|its topics are)/),
    ]);
    expect(notices.issues).toEqual([]);
  });

  it("says config issues by the sidebar's labels", () => {
    const config: LockstepConfig = { inputs: [{ topic: "/a" }], policy: { type: "fkie/approximate-time" } };
    const notices = headerNotices(config, [{ path: "/inputs", message: "Add at least two input topics" }], undefined);
    expect(notices.issues).toEqual(["Input topics: Add at least two input topics"]);
    expect(notices.missing).toEqual([]);
  });
});
