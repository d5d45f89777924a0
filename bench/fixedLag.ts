/**
 * `fixed-lag`: the fuse fixed-lag smoother over the embedded recording (samples/husky-2015.bag,
 * 395.3 s), reported as × real time (DESIGN §5; the issue's "≥ 50× faster than real time").
 *
 * The recording is read and decoded once, untimed. Each run then times the fusion layer only, fed
 * every message of the sensors' topics at its receive time:
 *
 * - `fixed-lag/runner` (standard): the `fusion` section of config/husky.json, the preset users
 *   run, through FusionRunner's default flow (fuse's FixedLagSmoother with its own queue and
 *   clock-driven cycles, the Odometry2D publisher's estimate after each cycle), with the config's
 *   static transforms: the fusion work of `lockstep analyze … --config config/husky.json`
 *   (final pose ≈ (−39.89, −77.10)).
 * - `fixed-lag/tutorial-runner`: the fuse simple tutorial's settings on the Husky topics (lag
 *   0.5 s, optimization every 50 ms, transaction timeout 10 ms, odometry twist and IMU yaw rate)
 *   through the runner's default flow.
 * - `fixed-lag/smoother`: the tutorial sensors into the standalone FixedLagSmoother.
 * - `fixed-lag/imu-1khz`: `fixed-lag/runner` over the recording's first 20 s with its 30 Hz IMU
 *   resampled to 1 kHz (bench/imuUpsampling.ts): whether the preview keeps up live with a 1 kHz
 *   IMU, where the 1 s lag holds about a thousand states.
 *
 * Every runner case keeps its output as the panel's engine does (PANEL_FUSION_RETENTION: the newest
 * 500 transactions), as a live consumer would; `analyze` streams its transactions to disk. Keeping
 * a whole recording's transactions (the runner's default) only adds garbage-collector work to
 * what is timed (on husky about 14 % of the CPU time and 10 % of the wall time; nothing
 * measurable on jackal).
 *
 * `lockstep bench` runs each of these (policy `fuse/…`) in a Node with the young generation the
 * CLI gives a run with fusion (src/cli/youngGeneration.ts); `--in-process` runs them as started.
 *
 * Extra figures: `realTimeFactor` (recording seconds per second of run time, of the median run),
 * `recordingSec`, and the final pose. The runner cases also report their CPU time
 * (`cpuNsPerMsg`, all threads: the garbage collector's helpers included, so it can exceed wall
 * time), which other load on the machine moves less than wall time.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";

import type { Benchmark, BenchmarkCase, RunResult } from "./Benchmark";
import { Fnv64 } from "./Fnv64";
import { feedRunner } from "./feedRunner";
import { cpuNowNs, nowNs } from "./harness";
import { upsampleImu, type ImuMessage, type TimedMessage } from "./imuUpsampling";
import { presetTransforms } from "./presetTransforms";
import { REPO_ROOT } from "./repoRoot";
import { quatFromRpy, TransformBuffer } from "../src/filters/tf";
import { StampedUuids, type FusionContext, type SensorModel } from "../src/fusion/core";
import { Imu2D, Odometry2D, Unicycle2DIgnition } from "../src/fusion/models";
import { Unicycle2D } from "../src/fusion/motion";
import { FixedLagSmoother, type Odometry2DEstimate } from "../src/fusion/optimizer";
import { FusionRunner } from "../src/fusion/runner";
import { readHeader } from "../src/messages";
import { PANEL_FUSION_RETENTION } from "../src/panel/engine/AnalysisEngine";
import type { TransformConfig } from "../src/pipeline";
import { openRecordingFile } from "../src/recording/node";
import { TimeBase, type Stamp } from "../src/time";

const BAG = join(REPO_ROOT, "samples", "husky-2015.bag");
const JACKAL_BAG = join(REPO_ROOT, "..", "shared", "data", "jackal-sim-2014.bag");
const JACKAL_PRESET = join(REPO_ROOT, "config", "jackal-3d.json");
const PRESET = join(REPO_ROOT, "config", "husky.json");
const IMU = "/imu/data";
const ODOM = "/husky_velocity_controller/odom";
const LAG = 500_000_000;
const PERIOD = 50_000_000;
const TIMEOUT = 10_000_000;
const Q = [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1];
/** `fixed-lag/imu-1khz`: the IMU rate and the stretch of the recording it covers. */
const HIGH_IMU_RATE_HZ = 1000;
const HIGH_IMU_SECONDS = 20;

/** The fuse simple tutorial's fusion settings with the Husky topics and frames. */
export const TUTORIAL_HUSKY_FUSION = {
  uuidRecipe: "ros1",
  optimizer: { type: "fixed-lag", lag: "0.5s", updatePeriod: "50ms", transactionTimeout: "10ms" },
  motionModels: {
    unicycle_motion_model: { type: "fuse_models::Unicycle2D", processNoiseDiagonal: Q },
  },
  sensors: {
    initial_localization_sensor: {
      type: "fuse_models::Unicycle2DIgnition",
      motionModels: ["unicycle_motion_model"],
      ignition: true,
      publishOnStartup: true,
      initialState: [0, 0, 0, 0, 0, 0, 0, 0],
      initialSigma: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
    },
    odometry_sensor: {
      type: "fuse_models::Odometry2D",
      motionModels: ["unicycle_motion_model"],
      topic: ODOM,
      twistTargetFrame: "base_link",
      linearVelocityDimensions: ["x", "y"],
      angularVelocityDimensions: ["yaw"],
    },
    imu_sensor: {
      type: "fuse_models::Imu2D",
      motionModels: ["unicycle_motion_model"],
      topic: IMU,
      twistTargetFrame: "base_link",
      angularVelocityDimensions: ["yaw"],
    },
  },
};

/** A recording's messages for the fusion benchmarks, decoded, with receive times relative to `base`. */
export interface Loaded {
  readonly base: TimeBase;
  readonly messages: readonly { topic: string; message: unknown; arrival: Stamp }[];
  readonly durationSec: number;
}

/** The preset (config/husky.json): its fusion section and static transforms. */
export interface Preset {
  readonly fusion: unknown;
  readonly transforms: readonly TransformConfig[];
}

/** config/husky.json's fusion section and static transforms. */
export function preset(): Preset {
  const json = JSON.parse(readFileSync(PRESET, "utf8")) as Partial<Preset>;
  if (json.fusion == undefined) {
    throw new Error(`${PRESET} has no fusion section`);
  }
  return { fusion: json.fusion, transforms: json.transforms ?? [] };
}

let loaded: Promise<Loaded> | undefined;

async function load(file = BAG, fusion: unknown = preset().fusion): Promise<Loaded> {
  const recording = await openRecordingFile(file);
  try {
    const messages: { topic: string; message: unknown; arrival: Stamp }[] = [];
    let base: TimeBase | undefined;
    const topics = new Set([IMU, ODOM, ...new FusionRunner(fusion).topics]);
    for await (const m of recording.messages({ topics: [...topics] })) {
      base ??= TimeBase.forFirstSecNsec(m.receiveTime.sec, m.receiveTime.nsec);
      messages.push({
        topic: m.topic,
        message: m.message,
        arrival: base.fromSecNsec(m.receiveTime.sec, m.receiveTime.nsec),
      });
    }
    if (base == undefined) {
      throw new Error(`${file} has no ${IMU} or ${ODOM} messages`);
    }
    const durationSec = (messages[messages.length - 1]!.arrival - messages[0]!.arrival) / 1e9;
    return { base, messages, durationSec };
  } finally {
    await recording.close();
  }
}

function transforms(): TransformBuffer {
  const tf = new TransformBuffer();
  tf.setStaticTransform("base_link", "imu_link", {
    translation: [0, -0.3, 0.52],
    rotation: quatFromRpy(1.570796327, 0, -1.570796327),
  });
  return tf;
}

/** Times one pass of `messages` through a started runner (the timed part of the runner cases). */
function timeRunner(runner: FusionRunner, messages: Loaded["messages"], data: Loaded): RunResult {
  const c0 = cpuNowNs();
  const t0 = nowNs();
  feedRunner(runner, messages);
  const elapsed = nowNs() - t0;
  return { ...result(elapsed, data, runner.transactionCount, runner.finalPose), cpuNs: cpuNowNs() - c0 };
}

/** The run's report: × real time and the final pose, hashed with the transaction count. */
export function result(
  elapsedNs: number,
  data: Loaded,
  transactions: number,
  pose: { stamp: Stamp; x: number; y: number; yaw: number } | undefined,
): RunResult {
  const hash = new Fnv64().fold(transactions);
  if (pose) {
    // Rounded so that the hash states the result, not the last bits of floating point.
    // Offset by 2^40 so that negative values fold as non-negative integers.
    for (const v of [pose.x, pose.y, pose.yaw]) {
      hash.fold(Math.round(v * 1e6) + 2 ** 40);
    }
    hash.fold(pose.stamp);
  }
  return {
    elapsedNs,
    tuples: transactions,
    outputHash: hash.hex(),
    extra: {
      realTimeFactor: Math.round((data.durationSec / (elapsedNs / 1e9)) * 10) / 10,
      recordingSec: Math.round(data.durationSec * 10) / 10,
      finalX: pose ? Math.round(pose.x * 1000) / 1000 : NaN,
      finalY: pose ? Math.round(pose.y * 1000) / 1000 : NaN,
      finalYaw: pose ? Math.round(pose.yaw * 10000) / 10000 : NaN,
    },
  };
}

/** The runner over `fusion` (with the preset's static transforms when given), fed its topics. */
function runnerCase(data: Loaded, fusion: unknown, withTransforms?: Preset): BenchmarkCase {
  const topics = new Set(new FusionRunner(fusion).topics);
  const messages = data.messages.filter((m) => topics.has(m.topic));
  return {
    n: messages.length,
    warmups: 1,
    runs: 3,
    run(): RunResult {
      const runner = new FusionRunner(fusion).setRetention(PANEL_FUSION_RETENTION);
      runner.start({ timeBase: data.base, transforms: withTransforms ? presetTransforms(withTransforms.transforms) : undefined });
      return timeRunner(runner, messages, data);
    },
  };
}

function presetCase(data: Loaded): BenchmarkCase {
  const p = preset();
  return runnerCase(data, p.fusion, p);
}

/** The preset over the recording's first HIGH_IMU_SECONDS with the IMU resampled to HIGH_IMU_RATE_HZ. */
function highRateImuCase(data: Loaded): BenchmarkCase {
  const p = preset();
  return runnerCase(highRateImu(data), p.fusion, p);
}

/** `fixed-lag/imu-1khz`'s input: the preset's topics over the recording's first 20 s, the IMU at 1 kHz. */
export async function highRateImuData(): Promise<Loaded> {
  return highRateImu(await (loaded ??= load()));
}

function highRateImu(data: Loaded): Loaded {
  const start = data.messages[0]!.arrival;
  const stretch = data.messages.filter((m) => m.arrival - start < HIGH_IMU_SECONDS * 1e9);
  const imu = upsampleImu(
    stretch.filter((m): m is TimedMessage<ImuMessage> => m.topic === IMU),
    HIGH_IMU_RATE_HZ,
    data.base,
  );
  const messages = [...stretch.filter((m) => m.topic !== IMU), ...imu].sort((a, b) => a.arrival - b.arrival);
  const durationSec = (messages[messages.length - 1]!.arrival - messages[0]!.arrival) / 1e9;
  return { base: data.base, messages, durationSec };
}

/** config/jackal-3d.json (Omnidirectional3D + Odometry3D + Imu3D) over jackal-sim-2014.bag. */
function jackalCase(data: Loaded): BenchmarkCase {
  return runnerCase(data, jackalFusion());
}

function jackalFusion(): unknown {
  return (JSON.parse(readFileSync(JACKAL_PRESET, "utf8")) as { fusion: unknown }).fusion;
}

let jackalLoaded: Promise<Loaded> | undefined;

function tutorialRunnerCase(data: Loaded): BenchmarkCase {
  const messages = data.messages.filter((m) => m.topic === IMU || m.topic === ODOM);
  return {
    n: data.messages.length,
    warmups: 1,
    runs: 3,
    run(): RunResult {
      const runner = new FusionRunner(TUTORIAL_HUSKY_FUSION).setRetention(PANEL_FUSION_RETENTION);
      const tf = transforms();
      runner.start({ timeBase: data.base, transforms: tf });
      return timeRunner(runner, messages, data);
    },
  };
}

function smootherCase(data: Loaded): BenchmarkCase {
  const messages = data.messages.filter((m) => m.topic === IMU || m.topic === ODOM);
  return {
    n: messages.length,
    warmups: 1,
    runs: 3,
    run(): RunResult {
      let now: Stamp = messages[0]!.arrival;
      const tf = transforms();
      const context: FusionContext = {
        timeBase: data.base,
        uuids: new StampedUuids(data.base, "ros1"),
        transforms: {
          lookup: (target, source, stamp) => {
            try {
              return tf.lookup(target, source, stamp);
            } catch {
              return undefined;
            }
          },
        },
        drop: () => undefined,
        warn: () => undefined,
        now: () => now,
      };
      const model = new Unicycle2D({ processNoiseDiagonal: Q });
      model.initialize(context, "unicycle_motion_model");
      const smoother = new FixedLagSmoother({
        lagDuration: LAG,
        optimizationPeriod: PERIOD,
        transactionTimeout: TIMEOUT,
      }).addMotionModel("unicycle_motion_model", model);
      let transactions = 0;
      let last: Odometry2DEstimate | undefined;
      smoother.onEstimate((e) => {
        last = e;
      });
      const sensors: [string, SensorModel, boolean][] = [
        [
          "initial_localization_sensor",
          new Unicycle2DIgnition({ initialSigma: [0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1] }),
          true,
        ],
        [
          "odometry_sensor",
          new Odometry2D({
            topic: ODOM,
            twistTargetFrame: "base_link",
            linearVelocityDimensions: ["x", "y"],
            angularVelocityDimensions: ["yaw"],
          }),
          false,
        ],
        ["imu_sensor", new Imu2D({ topic: IMU, twistTargetFrame: "base_link", angularVelocityDimensions: ["yaw"] }), false],
      ];
      for (const [name, sensor, ignition] of sensors) {
        smoother.addSensor(name, { motionModels: ["unicycle_motion_model"], ignition });
        sensor.initialize(context, name, (tx) => {
          transactions++;
          smoother.transactionCallback(name, tx);
        });
      }
      const t0 = nowNs();
      model.start();
      for (const [, sensor] of sensors) {
        sensor.start();
      }
      for (const m of messages) {
        now = m.arrival;
        smoother.spinUntil(m.arrival);
        // The header is read once per message and handed to the sensors, as the pipeline does.
        const event = { topic: m.topic, message: m.message, receiveTime: m.arrival, header: readHeader(m.message, data.base) };
        for (const [, sensor] of sensors) {
          if (sensor.topics.includes(m.topic)) {
            sensor.handleMessage(event);
          }
        }
      }
      smoother.spinUntil(now + PERIOD);
      smoother.flush();
      const elapsed = nowNs() - t0;
      return result(elapsed, data, transactions, last);
    },
  };
}

// `lockstep bench` awaits `prepare` (bench/harness.ts); the Benchmark type declares it synchronous,
// so the asynchronous recording load is typed through this cast.
function asyncPrepare(make: (data: Loaded) => BenchmarkCase): (n: number) => BenchmarkCase {
  const prepare = async (_n: number): Promise<BenchmarkCase> => make(await (loaded ??= load()));
  return prepare as unknown as (n: number) => BenchmarkCase;
}

/** The fixed-lag benchmarks (the config/husky.json preset in the standard set). */
export const fixedLagBenchmarks: readonly Benchmark[] = Object.freeze([
  {
    name: "fixed-lag/runner",
    policy: "fuse/fixed-lag",
    description: "fusion of config/husky.json (runner + FixedLagSmoother, as analyze) over samples/husky-2015.bag, × real time",
    standard: true,
    defaultN: 0,
    prepare: asyncPrepare(presetCase),
  },
  {
    name: "fixed-lag/jackal-3d",
    policy: "fuse/fixed-lag",
    description: "3D fusion of config/jackal-3d.json (runner + FixedLagSmoother, as analyze) over ../shared/data/jackal-sim-2014.bag, × real time",
    standard: false,
    defaultN: 0,
    prepare: (async (_n: number): Promise<BenchmarkCase> => {
      jackalLoaded ??= load(JACKAL_BAG, jackalFusion());
      return jackalCase(await jackalLoaded);
    }) as unknown as (n: number) => BenchmarkCase,
  },
  {
    name: "fixed-lag/imu-1khz",
    policy: "fuse/fixed-lag",
    description: `fusion of config/husky.json over the first ${HIGH_IMU_SECONDS} s of samples/husky-2015.bag with its IMU resampled to ${HIGH_IMU_RATE_HZ} Hz, × real time`,
    standard: false,
    defaultN: 0,
    prepare: asyncPrepare(highRateImuCase),
  },
  {
    name: "fixed-lag/tutorial-runner",
    policy: "fuse/fixed-lag",
    description: "fuse tutorial settings (runner + FixedLagSmoother) over samples/husky-2015.bag, × real time",
    standard: false,
    defaultN: 0,
    prepare: asyncPrepare(tutorialRunnerCase),
  },
  {
    name: "fixed-lag/smoother",
    policy: "fuse/fixed-lag",
    description: "fuse FixedLagSmoother (own queue and timer) over samples/husky-2015.bag, × real time",
    standard: false,
    defaultN: 0,
    prepare: asyncPrepare(smootherCase),
  },
]);
