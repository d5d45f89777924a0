import { describe, expect, it } from "vitest";

import { missingTopics, missingTopicsText } from "./missingTopics";
import type { LockstepConfig } from "./panelConfig";
import { PRESETS } from "./presets";

const HUSKY = ["/fix", "/husky_velocity_controller/odom", "/imu/data", "/tf"];

describe("missing input topics", () => {
  it("names each topic of the fuse tutorial preset that husky lacks, with what was meant", () => {
    const name = Object.keys(PRESETS).find((n) => /tutorial/i.test(n))!;
    const config = PRESETS[name] as LockstepConfig;
    const missing = missingTopics(config, HUSKY);
    expect(missing.map((m) => m.topic)).toEqual(expect.arrayContaining(["/odom"]));
    const odom = missing.find((m) => m.topic === "/odom")!;
    expect(odom.guesses).toEqual(["/husky_velocity_controller/odom"]);
    const text = missingTopicsText(missing, HUSKY);
    expect(text.join(" ")).toContain("/odom is not in this data source; did you mean /husky_velocity_controller/odom?");
  });

  it("lists the data source's topics when nothing is close, and flags nothing before they are known", () => {
    const config = { inputs: [{ topic: "/zzz_unrelated_topic" }, { topic: "/fix" }, { topic: "" }] };
    expect(missingTopics(config, undefined)).toEqual([]);
    const missing = missingTopics(config, HUSKY);
    expect(missing).toEqual([{ topic: "/zzz_unrelated_topic", guesses: [] }]);
    expect(missingTopicsText(missing, HUSKY)[0]).toBe(
      "/zzz_unrelated_topic is not in this data source; its topics are /fix, /husky_velocity_controller/odom, /imu/data, /tf.",
    );
  });
});
