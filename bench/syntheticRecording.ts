/**
 * A synthetic robot recording of any size, for timing whole-recording analysis at realistic scale
 * (the `recording-1gb` benchmark): an MCAP file (ROS 1 encoding, zstd-compressed 4 MiB chunks,
 * with summary and chunk index) holding
 * - the synchronized inputs: `/imu/data` (sensor_msgs/Imu, 400 Hz), `/cmd_vel_stamped`
 *   (geometry_msgs/TwistStamped, 50 Hz), `/gps/point` (geometry_msgs/PointStamped, 10 Hz);
 * - large messages on topics nobody synchronizes: `/lidar/points` (sensor_msgs/PointCloud2, 10 Hz,
 *   64 Ki points of 16 bytes, structured like a spinning lidar so that it compresses as real
 *   clouds do, not as noise or zeros);
 * - many small topics: `/diagnostics/<k>` (std_msgs/String, 10 Hz each).
 * Header stamps lag the log time by a fixed sensor latency per topic plus jitter; everything is
 * deterministic (mulberry32, seed 7).
 */

import { parse as parseMessageDefinition } from "@foxglove/rosmsg";
import { MessageWriter } from "@foxglove/rosmsg-serialization";
import { compress, isLoaded as zstdLoaded } from "@foxglove/wasm-zstd";
import { McapWriter } from "@mcap/core";

import { FileWritable } from "../src/recording/node";
import { mulberry32 } from "../src/testing/random";

/** Parameters of a synthetic recording. */
export interface SyntheticRecordingOptions {
  /** Recorded seconds (each second holds about 12 MB, so 90 s is just over 1 GB). */
  readonly seconds: number;
  /** Points per cloud (default 65,536: 1 MiB of point data per cloud). */
  readonly cloudPoints?: number;
  /** Number of small `/diagnostics/<k>` topics (default 24). */
  readonly diagnosticTopics?: number;
}

/** What was written. */
export interface SyntheticRecordingSummary {
  readonly path: string;
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

const HEADER = "uint32 seq\ntime stamp\nstring frame_id";
const SEP = "\n================================================================================\n";
const VECTOR3 = "float64 x\nfloat64 y\nfloat64 z";

/**
 * The ROS 1 definition text of a stamped message: `std_msgs/Header header` and `fields`, then
 * the definitions it depends on (Header first, then `dependencies` as "MSG: type\nfields").
 */
function stampedDefinition(fields: string, ...dependencies: string[]): string {
  return [`std_msgs/Header header\n${fields}`, `MSG: std_msgs/Header\n${HEADER}`, ...dependencies].join(SEP);
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
  "std_msgs/String": "string data",
} as const;

type TypeName = keyof typeof DEFINITIONS;

interface TopicSpec {
  readonly topic: string;
  readonly type: TypeName;
  readonly hz: number;
  /** Header stamp = log time - latency - jitter (ns). */
  readonly latencyNs: number;
}

/** Writes the recording to `path` (overwriting it). */
export async function writeSyntheticRecording(
  path: string,
  options: SyntheticRecordingOptions,
): Promise<SyntheticRecordingSummary> {
  await zstdLoaded;
  const cloudPoints = options.cloudPoints ?? 65_536;
  const topics: TopicSpec[] = [
    { topic: "/imu/data", type: "sensor_msgs/Imu", hz: 400, latencyNs: 1_500_000 },
    { topic: "/cmd_vel_stamped", type: "geometry_msgs/TwistStamped", hz: 50, latencyNs: 3_000_000 },
    { topic: "/gps/point", type: "geometry_msgs/PointStamped", hz: 10, latencyNs: 40_000_000 },
    { topic: "/lidar/points", type: "sensor_msgs/PointCloud2", hz: 10, latencyNs: 60_000_000 },
  ];
  for (let k = 0; k < (options.diagnosticTopics ?? 24); k++) {
    topics.push({ topic: `/diagnostics/${k}`, type: "std_msgs/String", hz: 10, latencyNs: 0 });
  }
  const file = await FileWritable.create(path);
  const writer = new McapWriter({
    writable: file,
    chunkSize: 4 << 20,
    compressChunk: (data) => ({ compression: "zstd", compressedData: compress(data, 1) }),
  });
  await writer.start({ profile: "ros1", library: "lockstep bench syntheticRecording" });
  const writers = new Map<TypeName, MessageWriter>();
  const channels: number[] = [];
  for (const spec of topics) {
    const text = DEFINITIONS[spec.type];
    if (!writers.has(spec.type)) {
      writers.set(spec.type, new MessageWriter(parseMessageDefinition(text)));
    }
    const schemaId = await writer.registerSchema({
      name: spec.type,
      encoding: "ros1msg",
      data: new TextEncoder().encode(text),
    });
    channels.push(
      await writer.registerChannel({
        topic: spec.topic,
        schemaId,
        messageEncoding: "ros1",
        metadata: new Map(),
      }),
    );
  }
  const rng = mulberry32(7);
  const startNs = 1_700_000_000_000_000_000n;
  const endNs = BigInt(Math.round(options.seconds * 1e9));
  // Merge the topics' schedules by log time (ties in topic order), as a recorder writes them.
  const next = topics.map(() => 0n);
  const seq = topics.map(() => 0);
  const counts: Record<string, number> = {};
  const cloud = new Uint8Array(cloudPoints * 16);
  let messages = 0;
  for (;;) {
    let t = -1;
    for (let i = 0; i < topics.length; i++) {
      if (next[i]! < endNs && (t < 0 || next[i]! < next[t]!)) {
        t = i;
      }
    }
    if (t < 0) {
      break;
    }
    const spec = topics[t]!;
    const logNs = startNs + next[t]!;
    next[t] = next[t]! + BigInt(Math.round(1e9 / spec.hz));
    const jitter = BigInt(Math.floor(rng() * 1_000_000));
    const stampNs = logNs - BigInt(spec.latencyNs) - (spec.latencyNs > 0 ? jitter : 0n);
    const header = {
      seq: seq[t]!++,
      stamp: { sec: Number(stampNs / 1_000_000_000n), nsec: Number(stampNs % 1_000_000_000n) },
      frame_id: spec.topic.slice(1).replace(/\//g, "_"),
    };
    const message = messageOf(spec, header, rng, cloud, seq[t]!);
    let data = writers.get(spec.type)!.writeMessage(message);
    if (spec.type === "sensor_msgs/PointCloud2") {
      // Serialized with empty `data`, which ends the message as uint32 length 0 + bool
      // is_dense; the point bytes are spliced in there (the writer copies arrays byte by byte).
      data = spliceCloudData(data, cloud);
    }
    await writer.addMessage({
      channelId: channels[t]!,
      sequence: header.seq,
      logTime: logNs,
      publishTime: logNs,
      data,
    });
    counts[spec.topic] = (counts[spec.topic] ?? 0) + 1;
    messages++;
  }
  await writer.end();
  await file.close();
  return { path, bytes: Number(file.position()), messages, counts };
}

function messageOf(
  spec: TopicSpec,
  header: unknown,
  rng: () => number,
  cloud: Uint8Array,
  k: number,
): unknown {
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

/** `serialized` (a PointCloud2 with empty data) with `cloud` as its data. */
function spliceCloudData(serialized: Uint8Array, cloud: Uint8Array): Uint8Array {
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

