/**
 * The synthetic robot the scale benchmarks record, independent of any file format: its topics,
 * their message definitions, the schedule (every topic's messages merged by log time, header
 * stamps lagging by latency and jitter) and the message values. Both writers
 * (syntheticRecording.ts for MCAP, syntheticRosbag2.ts for rosbag2 sqlite3) take everything from
 * here and only serialize and store it, so the two files hold the same messages.
 *
 * The robot:
 * - the synchronized inputs: `/imu/data` (Imu, 400 Hz), `/cmd_vel_stamped` (TwistStamped, 50 Hz),
 *   `/gps/point` (PointStamped, 10 Hz);
 * - large messages on a topic nobody synchronizes: `/lidar/points` (PointCloud2, 10 Hz, 64 Ki
 *   points of 16 bytes by default, structured like a spinning lidar so that it compresses as real
 *   clouds do, not as noise or zeros);
 * - many small topics: `/diagnostics/<k>` (String, 10 Hz each).
 * Header stamps lag the log time by a fixed sensor latency per topic plus jitter; everything is
 * deterministic (mulberry32, seed 7).
 */

import { mulberry32 } from "../src/testing/random";

/** What shapes the robot (everything but the duration has a default). */
export interface SyntheticRobotOptions {
  /** Recorded seconds. */
  readonly seconds: number;
  /** Points per cloud (default 65,536: 1 MiB of point data per cloud). */
  readonly cloudPoints?: number;
  /** Number of small `/diagnostics/<k>` topics (default 24). */
  readonly diagnosticTopics?: number;
}

/** What a writer of the robot's recording wrote (each format's summary adds its own facts). */
export interface SyntheticWriteSummary {
  /** What was written: the file, or the bag folder. */
  readonly path: string;
  /** Size of the file that holds the messages. */
  readonly bytes: number;
  readonly messages: number;
  /** Messages per topic. */
  readonly counts: Readonly<Record<string, number>>;
}

/** The synchronized topics, in config order. */
export const SYNTHETIC_SYNC_TOPICS = ["/imu/data", "/cmd_vel_stamped", "/gps/point"] as const;

/** The pipeline config (JSON text) `analyze` runs over a synthetic recording: sync only. */
export const SYNTHETIC_CONFIG_TEXT = JSON.stringify({
  inputs: SYNTHETIC_SYNC_TOPICS.map((topic) => ({ topic })),
  policy: { type: "fkie/approximate-time", maxQueueSize: 50, maxAge: null, maxTimespan: null },
});

/** Log time of the first message of every topic, ns since the epoch. */
export const SYNTHETIC_START_NS = 1_700_000_000_000_000_000n;

const SEP = "\n================================================================================\n";
const VECTOR3 = "float64 x\nfloat64 y\nfloat64 z";

/**
 * The header as each ROS version defines it: ROS 1's has a sequence number, ROS 2's a
 * builtin_interfaces/Time stamp (@foxglove/rosmsg reads both as its `time` type).
 */
const HEADERS = {
  ros1: "uint32 seq\ntime stamp\nstring frame_id",
  ros2: "builtin_interfaces/Time stamp\nstring frame_id",
} as const;

/** A ROS version whose message definitions the robot can give. */
export type RosVersion = keyof typeof HEADERS;

/**
 * The definition text of a stamped message: `std_msgs/Header header` and `fields`, then the
 * definitions it depends on (Header first, then `dependencies` as "MSG: type\nfields").
 */
function stampedDefinition(fields: string, ...dependencies: string[]): (ros: RosVersion) => string {
  return (ros) => [`std_msgs/Header header\n${fields}`, `MSG: std_msgs/Header\n${HEADERS[ros]}`, ...dependencies].join(SEP);
}

const DEFINITIONS = {
  "sensor_msgs/Imu": stampedDefinition(
    "geometry_msgs/Quaternion orientation\nfloat64[9] orientation_covariance\n" +
      "geometry_msgs/Vector3 angular_velocity\nfloat64[9] angular_velocity_covariance\n" +
      "geometry_msgs/Vector3 linear_acceleration\nfloat64[9] linear_acceleration_covariance",
    "MSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\nfloat64 w",
    `MSG: geometry_msgs/Vector3\n${VECTOR3}`,
  ),
  "geometry_msgs/TwistStamped": stampedDefinition(
    "geometry_msgs/Twist twist",
    "MSG: geometry_msgs/Twist\ngeometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular",
    `MSG: geometry_msgs/Vector3\n${VECTOR3}`,
  ),
  "geometry_msgs/PointStamped": stampedDefinition("geometry_msgs/Point point", `MSG: geometry_msgs/Point\n${VECTOR3}`),
  "sensor_msgs/PointCloud2": stampedDefinition(
    "uint32 height\nuint32 width\nsensor_msgs/PointField[] fields\n" +
      "bool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense",
    "MSG: sensor_msgs/PointField\nuint8 INT8=1\nuint8 UINT8=2\nuint8 INT16=3\nuint8 UINT16=4\n" +
      "uint8 INT32=5\nuint8 UINT32=6\nuint8 FLOAT32=7\nuint8 FLOAT64=8\n" +
      "string name\nuint32 offset\nuint8 datatype\nuint32 count",
  ),
  "std_msgs/String": () => "string data",
} as const;

/** A message type of the robot, by its ROS 1 name ("sensor_msgs/Imu"). */
export type SyntheticType = keyof typeof DEFINITIONS;

/**
 * The definition text of `type` for `ros` (the message, then "MSG:" sections for the types it
 * uses), in the form MCAP's ros1msg and ros2msg schemas and @foxglove/rosmsg take. The ROS 1
 * text is stable: the MCAP file stores it.
 */
export function syntheticDefinition(type: SyntheticType, ros: RosVersion): string {
  return DEFINITIONS[type](ros);
}

/** The ROS 2 name of `type` ("sensor_msgs/Imu" → "sensor_msgs/msg/Imu"). */
export function ros2TypeName(type: SyntheticType): string {
  return type.replace("/", "/msg/");
}

/** One topic of the robot. */
export interface SyntheticTopic {
  readonly topic: string;
  readonly type: SyntheticType;
  readonly hz: number;
  /** Header stamp = log time - latency - jitter (ns); topics without a header have 0. */
  readonly latencyNs: number;
}

/** The robot's topics, in the order writers register them (the schedule's tie order). */
export function syntheticTopics(options: SyntheticRobotOptions): SyntheticTopic[] {
  const topics: SyntheticTopic[] = [
    { topic: "/imu/data", type: "sensor_msgs/Imu", hz: 400, latencyNs: 1_500_000 },
    { topic: "/cmd_vel_stamped", type: "geometry_msgs/TwistStamped", hz: 50, latencyNs: 3_000_000 },
    { topic: "/gps/point", type: "geometry_msgs/PointStamped", hz: 10, latencyNs: 40_000_000 },
    { topic: "/lidar/points", type: "sensor_msgs/PointCloud2", hz: 10, latencyNs: 60_000_000 },
  ];
  for (let k = 0; k < (options.diagnosticTopics ?? 24); k++) {
    topics.push({ topic: `/diagnostics/${k}`, type: "std_msgs/String", hz: 10, latencyNs: 0 });
  }
  return topics;
}

/** One message of the schedule. */
export interface SyntheticMessage {
  /** Index of its topic in `syntheticTopics`. */
  readonly topicIndex: number;
  readonly topic: SyntheticTopic;
  /** Log (receive) time, ns since the epoch. */
  readonly logNs: bigint;
  /** Its header's stamp, ns since the epoch (equal to `logNs` for topics without a header). */
  readonly stampNs: bigint;
  /** 0, 1, 2, … per topic. */
  readonly sequence: number;
  /**
   * The message's values, fields named as both ROS versions define them; a header is
   * `{ seq, stamp: { sec, nsec }, frame_id }` (ROS 2 writers ignore `seq`). A PointCloud2 has
   * empty `data`: its point bytes are `cloud`.
   */
  readonly message: unknown;
  /**
   * A PointCloud2's point bytes (`spliceCloudData` puts them into its serialization), else
   * undefined. The buffer is reused: valid until the next message is taken.
   */
  readonly cloud: Uint8Array | undefined;
}

/**
 * Every message of the robot over `options.seconds`, merged by log time (ties in topic order) as
 * a recorder writes them. Deterministic: the same options give the same messages, byte for byte.
 */
export function* syntheticMessages(options: SyntheticRobotOptions): Generator<SyntheticMessage, void> {
  const topics = syntheticTopics(options);
  const cloud = new Uint8Array((options.cloudPoints ?? 65_536) * 16);
  const rng = mulberry32(7);
  const endNs = BigInt(Math.round(options.seconds * 1e9));
  const next = topics.map(() => 0n);
  const seq = topics.map(() => 0);
  for (;;) {
    let t = -1;
    for (let i = 0; i < topics.length; i++) {
      if (next[i]! < endNs && (t < 0 || next[i]! < next[t]!)) {
        t = i;
      }
    }
    if (t < 0) {
      return;
    }
    const spec = topics[t]!;
    const logNs = SYNTHETIC_START_NS + next[t]!;
    next[t] = next[t]! + BigInt(Math.round(1e9 / spec.hz));
    // Drawn for every message, with or without a header, so each topic's values stay where they
    // are whatever the others do.
    const jitter = BigInt(Math.floor(rng() * 1_000_000));
    const stampNs = logNs - BigInt(spec.latencyNs) - (spec.latencyNs > 0 ? jitter : 0n);
    const sequence = seq[t]!++;
    const header = {
      seq: sequence,
      stamp: { sec: Number(stampNs / 1_000_000_000n), nsec: Number(stampNs % 1_000_000_000n) },
      frame_id: spec.topic.slice(1).replace(/\//g, "_"),
    };
    const message = messageOf(spec, header, rng, cloud, sequence + 1);
    yield {
      topicIndex: t,
      topic: spec,
      logNs,
      stampNs,
      sequence,
      message,
      cloud: spec.type === "sensor_msgs/PointCloud2" ? cloud : undefined,
    };
  }
}

function messageOf(spec: SyntheticTopic, header: unknown, rng: () => number, cloud: Uint8Array, k: number): unknown {
  const noise = (): number => rng() - 0.5;
  switch (spec.type) {
    case "sensor_msgs/Imu":
      return {
        header,
        orientation: { x: 0, y: 0, z: Math.sin(k * 1e-3), w: Math.cos(k * 1e-3) },
        orientation_covariance: [1e-4, 0, 0, 0, 1e-4, 0, 0, 0, 1e-4],
        angular_velocity: { x: noise() * 0.01, y: noise() * 0.01, z: 0.2 + noise() * 0.01 },
        angular_velocity_covariance: [1e-6, 0, 0, 0, 1e-6, 0, 0, 0, 1e-6],
        linear_acceleration: { x: noise() * 0.1, y: noise() * 0.1, z: 9.81 + noise() * 0.1 },
        linear_acceleration_covariance: [1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 1e-3],
      };
    case "geometry_msgs/TwistStamped":
      return {
        header,
        twist: { linear: { x: 1 + noise() * 0.05, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.2 } },
      };
    case "geometry_msgs/PointStamped":
      return { header, point: { x: k * 0.1 + noise(), y: noise(), z: 0 } };
    case "sensor_msgs/PointCloud2":
      fillCloud(cloud, rng, k);
      return {
        header,
        height: 1,
        width: cloud.length / 16,
        fields: ["x", "y", "z", "intensity"].map((name, i) => ({
          name,
          offset: i * 4,
          datatype: 7,
          count: 1,
        })),
        is_bigendian: false,
        point_step: 16,
        row_step: cloud.length,
        data: new Uint8Array(0),
        is_dense: true,
      };
    case "std_msgs/String":
      return { data: `level=0 name=${spec.topic} message=OK uptime=${k}` };
  }
}

/**
 * `serialized` (a PointCloud2 serialized with empty `data`) with `cloud` as its data. Valid for
 * ROS 1 and little-endian CDR alike: both end such a message with the uint32 length 0 of `data`
 * and the bool `is_dense`, and neither pads after a uint8 array. (Serializers copy arrays byte by
 * byte; splicing is what makes 1 MiB clouds cheap to write.)
 */
export function spliceCloudData(serialized: Uint8Array, cloud: Uint8Array): Uint8Array {
  const head = serialized.length - 5; // uint32 data length (0), then bool is_dense
  const out = new Uint8Array(serialized.length + cloud.length);
  out.set(serialized.subarray(0, head), 0);
  new DataView(out.buffer).setUint32(head, cloud.length, true);
  out.set(cloud, head + 4);
  out[out.length - 1] = serialized[serialized.length - 1]!;
  return out;
}

const RINGS = 64;
let azimuthTable: { cos: Float32Array; sin: Float32Array; a: Float32Array } | undefined;

/** A spinning lidar's sweep: 64 rings, ranges that vary smoothly plus centimetre noise. */
function fillCloud(cloud: Uint8Array, rng: () => number, k: number): void {
  const f = new Float32Array(cloud.buffer, cloud.byteOffset, cloud.length / 4);
  const points = f.length / 4;
  const perRing = Math.max(1, Math.floor(points / RINGS));
  if (azimuthTable?.cos.length !== perRing) {
    const a = new Float32Array(perRing);
    const cos = new Float32Array(perRing);
    const sin = new Float32Array(perRing);
    for (let i = 0; i < perRing; i++) {
      a[i] = (i / perRing) * 2 * Math.PI;
      cos[i] = Math.cos(a[i]!);
      sin[i] = Math.sin(a[i]!);
    }
    azimuthTable = { cos, sin, a };
  }
  const { cos, sin } = azimuthTable;
  const phase = Math.sin(k * 0.05);
  for (let p = 0; p < points; p++) {
    const ring = Math.floor(p / perRing);
    const i = p % perRing;
    const range = 8 + 4 * sin[(i * 3) % perRing]! * phase + (rng() - 0.5) * 0.02;
    f[4 * p] = range * cos[i]!;
    f[4 * p + 1] = range * sin[i]!;
    f[4 * p + 2] = (ring - RINGS / 2) * 0.005 * range;
    f[4 * p + 3] = Math.round(rng() * 64);
  }
}
