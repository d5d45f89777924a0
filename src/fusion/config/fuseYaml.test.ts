import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

import { FuseYamlError, fusionFromFuseYaml, MAX_FUSE_YAML_CHARS } from "./fuseYaml";
import { parseFusionConfig } from "./fusionConfig";
import { FusionRunner } from "../runner/FusionRunner";
import { replayRecording, transactionsByOrder } from "../testing/replayRecording";

function preset(file: string): Record<string, unknown> {
  return (JSON.parse(readFileSync(file, "utf8")) as { fusion: Record<string, unknown> }).fusion;
}

/** The JSON preset's fusion section without its JSON-only uuidRecipe (fuse's YAML has none). */
function presetWithoutRecipe(file: string): Record<string, unknown> {
  const { uuidRecipe: _recipe, ...rest } = preset(file);
  return rest;
}

function issuesOf(f: () => unknown): { path: string; message: string }[] {
  try {
    f();
  } catch (e) {
    if (e instanceof FuseYamlError) {
      return [...e.issues];
    }
    throw e;
  }
  throw new Error("expected a FuseYamlError");
}

/** The tutorial's plugins written with the loader sections in one of fuse's forms. */
function tutorialYaml(form: "list" | "struct" | "ros2-list" | "ros2-map", wrap: (body: string) => string): string {
  type Plugin = readonly [name: string, type: string, loaderKeys: string];
  const plugins: { motion: Plugin[]; sensor: Plugin[] } = {
    motion: [["unicycle_motion_model", "fuse_models::Unicycle2D", ""]],
    sensor: [
      ["initial_localization_sensor", "fuse_models::Unicycle2DIgnition", "motion_models: [unicycle_motion_model]\nignition: true"],
      ["odometry_sensor", "fuse_models::Odometry2D", "motion_models: [unicycle_motion_model]"],
      ["imu_sensor", "fuse_models::Imu2D", "motion_models: [unicycle_motion_model]"],
    ],
  };
  const indent = (text: string, n: number): string => text.split("\n").map((l) => (l === "" ? l : " ".repeat(n) + l)).join("\n");
  const loader = (key: string, listKey: string, entries: readonly Plugin[]): string => {
    const extra = (e: Plugin): string => (e[2] === "" ? "" : `\n${e[2]}`);
    if (form === "list") {
      return `${key}:\n${entries.map((e) => indent(`- name: ${e[0]}\n${indent(`type: ${e[1]}${extra(e)}`, 2)}`, 2)).join("\n")}`;
    }
    const list = form === "ros2-list" ? `${indent(`${listKey}: [${entries.map((e) => e[0]).join(", ")}]`, 2)}\n` : "";
    return `${key}:\n${list}${entries.map((e) => indent(`${e[0]}:\n${indent(`type: ${e[1]}${extra(e)}`, 2)}`, 2)).join("\n")}`;
  };
  const body = [
    "optimization_frequency: 20.0",
    "transaction_timeout: 0.01",
    "lag_duration: 0.5",
    loader("motion_models", "motion_model_list", plugins.motion),
    loader("sensor_models", "sensor_model_list", plugins.sensor),
    "unicycle_motion_model:\n  process_noise_diagonal: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]",
    "initial_localization_sensor:\n  publish_on_startup: true\n  initial_state: [0, 0, 0, 0, 0, 0, 0, 0]\n  initial_sigma: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1]",
    "odometry_sensor:\n  topic: 'odom'\n  twist_target_frame: 'base_footprint'\n  linear_velocity_dimensions: ['x', 'y']\n  angular_velocity_dimensions: ['yaw']",
    "imu_sensor:\n  topic: /imu\n  twist_target_frame: base_footprint\n  angular_velocity_dimensions: [yaw]",
  ].join("\n");
  return wrap(body);
}

const nest = (...keys: string[]) => (body: string): string => {
  let text = body;
  for (const key of [...keys].reverse()) {
    text = `${key}:\n${text.split("\n").map((l) => (l === "" ? l : `  ${l}`)).join("\n")}`;
  }
  return text;
};

describe("fusionFromFuseYaml: the fusion section from fuse's own parameter files", () => {
  it("config/husky.fuse.yaml (ROS 2 params file) is config/husky.json's fusion section", () => {
    const imported = fusionFromFuseYaml(readFileSync("config/husky.fuse.yaml", "utf8"));
    expect(imported.warnings).toEqual([]);
    expect(parseFusionConfig(imported.fusion)).toEqual(parseFusionConfig(presetWithoutRecipe("config/husky.json")));
  });

  it("config/fuse-simple-tutorial.fuse.yaml (ROS 1 lists) is the tutorial preset's; its publisher is named, not run", () => {
    const imported = fusionFromFuseYaml(readFileSync("config/fuse-simple-tutorial.fuse.yaml", "utf8"));
    expect(parseFusionConfig(imported.fusion)).toEqual(parseFusionConfig(presetWithoutRecipe("config/fuse-simple-tutorial.json")));
    expect(imported.warnings).toHaveLength(1);
    expect(imported.warnings[0]!.path).toBe("publishers[0]");
    expect(imported.warnings[0]!.message).toContain("fuse_models::Odometry2DPublisher");
  });

  const forms = [
    ["ROS 1 list at the root", "list", nest()],
    ["ROS 1 map under the node name", "struct", nest("state_estimator")],
    ["ROS 2 map with *_list", "ros2-list", nest("state_estimator", "ros__parameters")],
    ["ROS 2 map without *_list, /** wildcard", "ros2-map", nest("/**", "ros__parameters")],
    ["ROS 2 under a namespace", "ros2-list", nest("robot", "state_estimator", "ros__parameters")],
  ] as const;
  for (const [title, form, wrap] of forms) {
    it(`reads the ${title} form as the tutorial preset`, () => {
      const imported = fusionFromFuseYaml(tutorialYaml(form, wrap));
      expect(imported.warnings).toEqual([]);
      expect(parseFusionConfig(imported.fusion)).toEqual(parseFusionConfig(presetWithoutRecipe("config/fuse-simple-tutorial.json")));
    });
  }

  it("converts seconds, Hz and fuse's loss sections to the JSON forms", () => {
    const imported = fusionFromFuseYaml(`
optimization_period: 0.025
motion_models: {m: {type: fuse_models::Unicycle2D}}
sensor_models: {odom: {type: fuse_models::Odometry2D, motion_models: [m]}}
m: {process_noise_diagonal: [1, 1, 1, 1, 1, 1, 1, 1], buffer_length: 2.5}
odom:
  topic: wheel/odom
  throttle_period: 0.1
  position_dimensions: [x, y]
  pose_loss: {type: fuse_loss::HuberLoss, a: 0.5}
solver_options: {max_num_iterations: 7}
`);
    expect(imported.fusion.optimizer).toEqual({ type: "fixed-lag", updatePeriod: "25ms", maxIterations: 7 });
    expect((imported.fusion.motionModels as Record<string, unknown>).m).toMatchObject({ bufferLength: "2500ms" });
    expect((imported.fusion.sensors as Record<string, unknown>).odom).toEqual({
      type: "fuse_models::Odometry2D",
      motionModels: ["m"],
      topic: "/wheel/odom",
      throttlePeriod: "100ms",
      positionDimensions: ["x", "y"],
      poseLoss: { type: "fuse_loss::HuberLoss", parameters: { a: 0.5 } },
    });
    const parsed = parseFusionConfig(imported.fusion);
    expect(parsed.optimizer.updatePeriod).toBe(25_000_000);
    expect(parsed.sensors.get("odom")!.params.throttlePeriod).toBe(100_000_000);
  });

  it("names every key Lockstep ignores by its path, and does not run plugins it has not registered", () => {
    const imported = fusionFromFuseYaml(`
state_estimation:
  ros__parameters:
    use_sim_time: true
    lag_duration: 0.5
    solver_options: {linear_solver_type: DENSE_QR}
    motion_models:
      motion_model_list: [unicycle]
      unicycle: {type: fuse_models::Unicycle2D}
      spare: {type: fuse_models::Unicycle2D}
    sensor_models:
      odom: {type: fuse_models::Odometry2D, motion_models: [unicycle], queue: 3}
      range_sensor: {type: fuse_tutorials::RangeSensorModel, motion_models: [unicycle]}
    unicycle: {process_noise_diagonal: [1, 1, 1, 1, 1, 1, 1, 1]}
    odom: {topic: odom, linear_velocity_dimensions: [x], tcp_no_delay: true}
    range_sensor: {topic: beacons}
`);
    const p = "state_estimation.ros__parameters";
    expect(imported.warnings.map((w) => w.path)).toEqual([
      `${p}.solver_options.linear_solver_type`,
      `${p}.motion_models.spare`,
      `${p}.sensor_models.odom.queue`,
      `${p}.odom.tcp_no_delay`,
      `${p}.sensor_models.range_sensor.type`,
      `${p}.use_sim_time`,
    ]);
    expect(imported.warnings.find((w) => w.path.endsWith("range_sensor.type"))!.message).toContain("fuse_tutorials::RangeSensorModel is not implemented");
    expect(Object.keys(imported.fusion.sensors as object)).toEqual(["odom"]);
    expect(Object.keys(imported.fusion.motionModels as object)).toEqual(["unicycle"]);
  });

  it("rejects wrong types naming the key path and the value", () => {
    const issues = issuesOf(() =>
      fusionFromFuseYaml(`
node:
  ros__parameters:
    lag_duration: half a second
    optimization_frequency: 0
    motion_models: {m: {type: fuse_models::Unicycle2D}}
    sensor_models: {imu: {type: fuse_models::Imu2D, motion_models: [m], ignition: "yes"}}
    m: {process_noise_diagonal: [1, 1, 1]}
    imu: {topic: imu, angular_velocity_dimensions: [pitch], remove_gravitational_acceleration: 1, throttle_period: -1}
`),
    );
    const p = "node.ros__parameters";
    expect(issues.map((i) => i.path)).toEqual([
      `${p}.lag_duration`,
      `${p}.optimization_frequency`,
      `${p}.m.process_noise_diagonal`,
      `${p}.imu.angular_velocity_dimensions[0]`,
      `${p}.imu.remove_gravitational_acceleration`,
      `${p}.imu.throttle_period`,
      `${p}.sensor_models.imu.ignition`,
    ]);
    expect(issues[0]!.message).toContain('"half a second"');
    expect(issues[3]!.message).toContain('"pitch"');
    expect(issues[4]!.message).toContain("got 1");
    expect(issues[6]!.message).toContain('"yes"');
  });

  it("rejects a missing required parameter, a listed plugin without an entry, and text that is not YAML", () => {
    expect(
      issuesOf(() =>
        fusionFromFuseYaml("motion_models: [{name: m, type: fuse_models::Unicycle2D}]\nsensor_models: [{name: o, type: fuse_models::Odometry2D}]\n"),
      ).map((i) => i.path),
    ).toEqual(["m.process_noise_diagonal", "o.topic"]);
    expect(
      issuesOf(() => fusionFromFuseYaml("sensor_models:\n  sensor_model_list: [a, b]\n  a: {type: fuse_models::Twist2D}\na: {topic: t}\n")).map((i) => i.path),
    ).toEqual(["sensor_models.sensor_model_list[1]"]);
    const notYaml = issuesOf(() => fusionFromFuseYaml("lag_duration: [0.5\nsensor_models: {"));
    expect(notYaml[0]!.message).toMatch(/^not YAML at line \d+, column \d+/);
    expect(issuesOf(() => fusionFromFuseYaml("robot_state_publisher: {publish_frequency: 10}"))[0]!.message).toContain("no fuse optimizer parameters");
  });

  it("refuses durations and frequencies a config cannot hold (beyond 104 days, below 1 ns), in seconds and Hz", () => {
    const issues = issuesOf(() => fusionFromFuseYaml("lag_duration: 1e30\noptimization_frequency: 1e-300\ntransaction_timeout: 9007200\n"));
    expect(issues).toEqual([
      { path: "lag_duration", message: "expected a number of seconds ≥ 0 and at most 9007199 (104 days), got 1e+30" },
      { path: "optimization_frequency", message: "expected a frequency in Hz from 1.1e-7 (a period of 104 days) to 1e9, got 1e-300" },
      { path: "transaction_timeout", message: "expected a number of seconds ≥ 0 and at most 9007199 (104 days), got 9007200" },
    ]);
    expect(issuesOf(() => fusionFromFuseYaml("optimization_frequency: 2e9\n"))[0]!.path).toBe("optimization_frequency");
    // The largest that fit are taken.
    const imported = fusionFromFuseYaml(
      tutorialYaml("list", (b) => b).replace("lag_duration: 0.5", "lag_duration: 9007199").replace("optimization_frequency: 20.0", "optimization_frequency: 1e9"),
    );
    expect(imported.fusion.optimizer).toMatchObject({ lag: "9007199s", updatePeriod: "1ns" });
  });

  it("refuses text over MAX_FUSE_YAML_CHARS before parsing it, and quotes a huge value short", () => {
    const values = `[${"0.1, ".repeat(MAX_FUSE_YAML_CHARS / 5)}0.1]`;
    const [tooLong] = issuesOf(() => fusionFromFuseYaml(`lag_duration: 0.5\nm: {process_noise_diagonal: ${values}}\n`));
    expect(tooLong).toEqual({ path: "", message: expect.stringMatching(/^1\.0 MiB of text, more than the 1 MiB a fuse parameter file is read up to/) as unknown });
    // Under the limit, the wrong-length list is named with a preview of it, not all of it.
    const shorter = `[${"0.1, ".repeat(20_000)}0.1]`;
    const issues = issuesOf(() =>
      fusionFromFuseYaml(`motion_models: [{name: m, type: fuse_models::Unicycle2D}]\nm: {process_noise_diagonal: ${shorter}}\n`),
    );
    expect(issues.map((i) => i.path)).toEqual(["m.process_noise_diagonal"]);
    expect(issues[0]!.message).toMatch(/got \[0\.1,0\.1,.*\.\.\.$/);
    expect(issues[0]!.message.length).toBeLessThan(200);
  });

  it("reports YAML warnings among the file's warnings, not on the process's warning channel", () => {
    const emitted: unknown[] = [];
    const listener = (w: unknown): void => {
      emitted.push(w);
    };
    process.on("warning", listener);
    try {
      const imported = fusionFromFuseYaml(`comment_of_mine: !!js/function "() => 1"\n${tutorialYaml("list", (b) => b)}`);
      const tagWarnings = imported.warnings.filter((w) => w.message.includes("Unresolved tag"));
      expect(tagWarnings).toEqual([{ path: "", message: expect.stringMatching(/^Unresolved tag: tag:yaml\.org,2002:js\/function at line \d+, column \d+; read as plain YAML$/) as unknown }]);
    } finally {
      process.off("warning", listener);
    }
    expect(emitted).toEqual([]);
    // An alias bomb is still refused by the reader's alias limit.
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]", ..."bcdefgh".split("").map((k, i) => `${k}: &${k} [${`*${"abcdefgh"[i]!}, `.repeat(8)}*${"abcdefgh"[i]!}]`)].join("\n");
    expect(issuesOf(() => fusionFromFuseYaml(bomb))[0]!.message).toMatch(/^not YAML.*alias/i);
  });
});

const BAG = "../shared/data/fuse-tutorial-turtlebot3.bag";

/** Transactions of the first seconds of the tutorial bag, without fuse's random constraint UUIDs. */
async function runSlice(fusion: unknown, seconds: number): Promise<{ lines: unknown[]; pose: unknown }> {
  const runner = await replayRecording(new FusionRunner(fusion), BAG, { stop: (arrival, first) => arrival - first > seconds * 1e9 });
  return { lines: transactionsByOrder(runner), pose: runner.finalPose };
}

describe.skipIf(!existsSync(BAG))("the tutorial's fuse YAML on fuse-tutorial-turtlebot3.bag", () => {
  it("gives the JSON preset's transactions and final pose (first 6 s of the recording)", async () => {
    const fromYaml = fusionFromFuseYaml(readFileSync("config/fuse-simple-tutorial.fuse.yaml", "utf8")).fusion;
    const yaml = await runSlice({ ...fromYaml, uuidRecipe: "ros1" }, 6);
    const json = await runSlice(preset("config/fuse-simple-tutorial.json"), 6);
    expect(yaml.lines.length).toBeGreaterThan(100);
    expect(yaml.lines).toEqual(json.lines);
    expect(yaml.pose).toEqual(json.pose);
  });
});
