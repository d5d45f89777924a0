import { describe, expect, it } from "vitest";

import { closestName, topicGuess } from "./closestName";

const HUSKY = ["/imu/data", "/husky_velocity_controller/odom", "/fix", "/tf", "/joint_states", "/navsat/fix"];

describe("closestName", () => {
  it("the candidate within two edits, case aside, else none", () => {
    expect(closestName("maxAgee", ["maxAge", "maxQueueSize"])).toBe("maxAge");
    expect(closestName("MAXAGE", ["maxAge"])).toBe("maxAge");
    expect(closestName("queue", ["maxAge", "maxQueueSize"])).toBeUndefined();
  });
});

describe("topicGuess", () => {
  it("a typo: the topic within two edits", () => {
    expect(topicGuess("/imu/dta", HUSKY)).toEqual(["/imu/data"]);
  });

  it("a leading slash too many or missing", () => {
    expect(topicGuess("imu/data", HUSKY)).toEqual(["/imu/data"]);
    expect(topicGuess("/imu", ["imu", "scan"])).toEqual(["imu"]);
  });

  it("a namespace missing or different: every topic with the same last name", () => {
    expect(topicGuess("/odom", HUSKY)).toEqual(["/husky_velocity_controller/odom"]);
    expect(topicGuess("/gps/fix", HUSKY)).toEqual(["/fix", "/navsat/fix"]);
  });

  it("nothing close: no guess", () => {
    expect(topicGuess("/camera/image_raw", HUSKY)).toEqual([]);
    expect(topicGuess("/imu/data", [])).toEqual([]);
  });
});
