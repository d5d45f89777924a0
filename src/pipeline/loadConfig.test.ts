import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

import { ConfigLoadError, loadConfig } from "./loadConfig";

/** A file system of the given texts; a missing file fails as Node's would. */
function files(texts: Record<string, string>): (path: string) => string {
  return (path) => {
    const text = texts[path];
    if (text == undefined) {
      throw Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
    }
    return text;
  };
}

const HUSKY = readFileSync("config/husky.json", "utf8");
const HUSKY_YAML = readFileSync("config/husky.fuse.yaml", "utf8");
const huskyWith = (fusion: unknown): string => JSON.stringify({ ...(JSON.parse(HUSKY) as object), fusion });

function loadError(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigLoadError) {
      return e.message;
    }
    throw e;
  }
  throw new Error("expected a ConfigLoadError");
}

describe("loadConfig with fuse's YAML for the fusion section", () => {
  const json = loadConfig("husky.json", files({ "husky.json": HUSKY }));

  it('reads "fusion": {"fuseYaml": …} beside the config file, with the JSON keys beside it applied over it', () => {
    const read = files({ "presets/husky.json": huskyWith({ fuseYaml: "husky.fuse.yaml", uuidRecipe: "ros1" }), "presets/husky.fuse.yaml": HUSKY_YAML });
    expect(loadConfig("presets/husky.json", read)).toEqual(json);
    const batch = loadConfig("presets/husky.json", files({
      "presets/husky.json": huskyWith({ fuseYaml: "husky.fuse.yaml", optimizer: { type: "batch" } }),
      "presets/husky.fuse.yaml": HUSKY_YAML,
    }));
    expect(batch.fusion!.optimizer).toEqual({ type: "batch", updatePeriod: "100ms", transactionTimeout: "100ms" });
  });

  it("takes --fusion's file instead of the config's fusion section, and reports ignored keys", () => {
    const warnings: string[] = [];
    const noFusion = JSON.stringify({ ...(JSON.parse(HUSKY) as object), fusion: undefined });
    const yaml = `${HUSKY_YAML}    reset_service: ~/reset\n`;
    const config = loadConfig("c.json", files({ "c.json": noFusion, "/etc/fuse.yaml": yaml }), {
      fuseYaml: "/etc/fuse.yaml",
      onWarning: (m) => warnings.push(m),
    });
    const { uuidRecipe: _r, ...expected } = json.fusion!;
    expect(config.fusion).toEqual(expected);
    expect(warnings).toEqual([`fuse YAML "/etc/fuse.yaml": state_estimator.ros__parameters.reset_service: not a fuse optimizer parameter or plugin section Lockstep implements; ignored`]);
  });

  it("names the YAML file and the key path of a wrong value, and a file it cannot read", () => {
    const bad = HUSKY_YAML.replace("linear_velocity_dimensions: [x, y]", "linear_velocity_dimensions: [x, q]");
    expect(loadError(() => loadConfig("c.json", files({ "c.json": HUSKY, "f.yaml": bad }), { fuseYaml: "f.yaml" }))).toBe(
      `invalid fuse YAML file "f.yaml":\n  state_estimator.ros__parameters.wheel_odometry.linear_velocity_dimensions[1]: "q" is not a dimension here (allowed: x, y)`,
    );
    expect(loadError(() => loadConfig("c.json", files({ "c.json": huskyWith({ fuseYaml: "gone.yaml" }) })))).toBe(
      'cannot read fuse YAML file "gone.yaml" (no such file or folder); pass a fuse parameter file (.yaml)',
    );
    expect(loadError(() => loadConfig(huskyWith({ fuseYaml: 3 }), files({})))).toContain("/fusion/fuseYaml: expected the path of a fuse YAML file, got 3");
    expect(loadError(() => loadConfig(huskyWith({ fuseYaml: "f.yaml", sensors: {} }), files({ "f.yaml": HUSKY_YAML })))).toContain(
      "/fusion/sensors: give either fusion.fuseYaml or fusion.sensors",
    );
  });
});

describe("loadConfig's inline JSON", () => {
  it("takes a JSON array as inline JSON of the wrong shape, not as a file name", () => {
    expect(loadError(() => loadConfig(" []", files({})))).toBe("invalid --config:\n  /: [] is an array; expected object");
    expect(loadError(() => loadConfig("[1,", files({})))).toMatch(/^invalid --config:\n {2}\/: not valid JSON/);
  });
});

describe("loadConfig warnings", () => {
  it("an input repeating another's topic is named: its sets would hold each message twice", () => {
    const warnings: string[] = [];
    const config = JSON.stringify({
      inputs: [{ topic: "/imu/data" }, { topic: "/fix" }, { topic: "/imu/data", stamp: "header" }, { topic: "/fix" }],
      policy: { type: "fkie/approximate-time" },
    });
    loadConfig(config, files({}), { onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual([
      '/inputs/2: the same topic as /inputs/0 ("/imu/data"): every set would hold one message of it twice; remove one',
      '/inputs/3: the same topic as /inputs/1 ("/fix"): every set would hold one message of it twice; remove one',
    ]);
  });
});
