import { quatFromRpy } from "../geometry";
import { secNsecText } from "../time";

/**
 * Lockstep's results as messages Foxglove's and Lichtblick's own panels display (Plot, 3D, Log,
 * Raw Messages), in the shapes of the foxglove schemas (`foxglove.PosesInFrame`,
 * `foxglove.Odometry`, `foxglove.Log`, `foxglove.SceneUpdate`) plus one Lockstep shape for the
 * synchronized sets' timing. One place for these shapes and their topics: `analyze` writes them
 * to synchronized.mcap; a live publisher can send the same objects with the `json` encoding.
 * Times are foxglove `time` objects (`{sec, nsec}`), absolute.
 */

/** A foxglove `time`: seconds and nanoseconds since the epoch (0 <= nsec < 1e9). */
export interface FoxgloveTime {
  readonly sec: number;
  readonly nsec: number;
}

/** The result topics under a publish namespace ("/lockstep" → "/lockstep/fused_poses", …). */
export interface ResultTopics {
  /** foxglove.PosesInFrame: the newest fused poses (a short trail), one message per optimization cycle. */
  readonly fusedPoses: string;
  /** foxglove.Odometry: the fused pose of each cycle (Plot `.pose.position.x`, …). */
  readonly fusedOdometry: string;
  /** foxglove.Log: every dropped message, with its topic, stamp and reason. */
  readonly drops: string;
  /** lockstep.TupleTiming: each synchronized set's timespan and lag (Plot `.timespan_ms`, `.lag_ms`). */
  readonly tupleTiming: string;
  /** foxglove.SceneUpdate: a preview of each fusion transaction (one entity per sensor, replaced). */
  readonly transactions: string;
}

/** The result topics under `namespace` (trailing slashes ignored). */
export function resultTopics(namespace: string): ResultTopics {
  const ns = namespace.replace(/\/+$/, "");
  return {
    fusedPoses: `${ns}/fused_poses`,
    fusedOdometry: `${ns}/fused_odometry`,
    drops: `${ns}/drops`,
    tupleTiming: `${ns}/tuple_timing`,
    transactions: `${ns}/transactions`,
  };
}

/** fuse's default frames for its published odometry (fuse_models Odometry2DPublisher). */
export const FUSED_FRAMES = { world: "odom", body: "base_link" } as const;

/** A fused pose: position (m) and fixed-axis roll, pitch, yaw (rad); z, roll, pitch 0 in 2D. */
export interface ResultPose {
  readonly x: number;
  readonly y: number;
  readonly z?: number;
  readonly roll?: number;
  readonly pitch?: number;
  readonly yaw: number;
}

function poseOf(p: ResultPose): { position: { x: number; y: number; z: number }; orientation: { x: number; y: number; z: number; w: number } } {
  const [x, y, z, w] = quatFromRpy(p.roll ?? 0, p.pitch ?? 0, p.yaw);
  return { position: { x: p.x, y: p.y, z: p.z ?? 0 }, orientation: { x, y, z, w } };
}

/** foxglove.PosesInFrame of `poses` (oldest first) in `frameId`, stamped `timestamp`. */
export function fusedPosesMessage(poses: readonly ResultPose[], timestamp: FoxgloveTime, frameId: string = FUSED_FRAMES.world): Record<string, unknown> {
  return { timestamp, frame_id: frameId, poses: poses.map(poseOf) };
}

/** foxglove.Odometry of one fused pose (no velocity: the fused pose carries none). */
export function fusedOdometryMessage(
  pose: ResultPose,
  timestamp: FoxgloveTime,
  frames: { readonly world: string; readonly body: string } = FUSED_FRAMES,
): Record<string, unknown> {
  return { timestamp, frame_id: frames.world, body_frame_id: frames.body, pose: poseOf(pose) };
}

/** A dropped message, as drops.jsonl describes it. */
export interface ResultDrop {
  readonly topic: string;
  /** Its header stamp, when it had a usable one. */
  readonly stamp: FoxgloveTime | undefined;
  readonly reason: string;
  readonly detail?: string | undefined;
  /** Where it was dropped: "sync" or an extension's name ("fusion"). */
  readonly stage: string;
  /** The fusion sensor model that dropped it, if any. */
  readonly sensor?: string | undefined;
}

const LOG_WARNING = 3;

/**
 * foxglove.Log of a drop: level WARNING, `name` the dropped message's topic, `file` the stage (and
 * sensor), `timestamp` the message's header stamp (else `fallback`, its receive time), and a
 * message "<reason>: <detail> (stamp <sec.nsec>)".
 */
export function dropLogMessage(drop: ResultDrop, fallback: FoxgloveTime): Record<string, unknown> {
  const stamp = drop.stamp == undefined ? "no usable stamp" : `stamp ${secNsecText(drop.stamp.sec, drop.stamp.nsec)}`;
  return {
    timestamp: drop.stamp ?? fallback,
    level: LOG_WARNING,
    message: `${drop.reason}${drop.detail != undefined && drop.detail !== "" ? `: ${drop.detail}` : ""} (${stamp})`,
    name: drop.topic,
    file: drop.sensor != undefined ? `${drop.stage}/${drop.sensor}` : drop.stage,
    line: 0,
  };
}

/** One synchronized set's timing, as tuples.jsonl holds it. */
export interface ResultTupleTiming {
  readonly index: number;
  readonly topics: readonly string[];
  /** Header stamps in slot order. */
  readonly stamps: readonly FoxgloveTime[];
  /** max − min of the stamps (ns). */
  readonly timespanNs: number;
  /** Newest stamp seen on any input at emission minus the set's newest stamp (ns). */
  readonly lagNs: number;
}

/** Schema name of `tupleTimingMessage`'s shape. */
export const TUPLE_TIMING_SCHEMA = "lockstep.TupleTiming";

/** JSON schema of `tupleTimingMessage`'s shape. */
export const TUPLE_TIMING_JSON_SCHEMA = {
  title: TUPLE_TIMING_SCHEMA,
  description: "Timing of one synchronized set (Lockstep)",
  type: "object",
  properties: {
    timestamp: { type: "object", title: "time", properties: { sec: { type: "integer" }, nsec: { type: "integer" } }, description: "Newest header stamp of the set" },
    index: { type: "integer", description: "0-based emission index of the set" },
    timespan_ms: { type: "number", description: "Newest minus oldest header stamp of the set, in milliseconds" },
    lag_ms: { type: "number", description: "Newest stamp seen on any input when the set was emitted minus the set's newest stamp, in milliseconds" },
    topics: { type: "array", items: { type: "string" }, description: "Input topics in slot order" },
    stamps: {
      type: "array",
      items: { type: "object", title: "time", properties: { sec: { type: "integer" }, nsec: { type: "integer" } } },
      description: "Header stamps in slot order",
    },
  },
  required: ["timestamp", "index", "timespan_ms", "lag_ms", "topics", "stamps"],
} as const;

function newest(stamps: readonly FoxgloveTime[]): FoxgloveTime {
  let best: FoxgloveTime = { sec: 0, nsec: 0 };
  for (const s of stamps) {
    if (s.sec > best.sec || (s.sec === best.sec && s.nsec > best.nsec)) {
      best = s;
    }
  }
  return best;
}

/** lockstep.TupleTiming of a set (timespan and lag in milliseconds, for Plot). */
export function tupleTimingMessage(t: ResultTupleTiming): Record<string, unknown> {
  return {
    timestamp: newest(t.stamps),
    index: t.index,
    timespan_ms: t.timespanNs / 1e6,
    lag_ms: t.lagNs / 1e6,
    topics: t.topics,
    stamps: t.stamps,
  };
}

/**
 * The parts of a fusion transaction a preview draws: a fusion `Transaction` (with its stamp made
 * absolute) fits, as does a parsed DESIGN §3.4 line (with `stamp` converted by `timeOfNs`).
 */
export interface TransactionPreview {
  readonly stamp: FoxgloveTime;
  readonly source: string;
  /** Variables; `stamp` only pairs an orientation with the position of the same stamp (any key). */
  readonly addedVariables: readonly { readonly uuid: string; readonly type: string; readonly stamp?: string | number | undefined; readonly data: ArrayLike<number> }[];
  readonly addedConstraints: readonly { readonly variables: readonly string[] }[];
}

/** foxglove `time` of a decimal nanosecond string (a §3.1 stamp). */
export function timeOfNs(ns: string | bigint): FoxgloveTime {
  const n = typeof ns === "bigint" ? ns : BigInt(ns);
  return { sec: Number(n / 1_000_000_000n), nsec: Number(n % 1_000_000_000n) };
}

const POSITION_TYPES = new Set(["fuse_variables::Position2DStamped", "fuse_variables::Position3DStamped"]);
const ORIENTATION_2D = "fuse_variables::Orientation2DStamped";
const SPHERE = 0.12;

/**
 * foxglove.SceneUpdate previewing one fusion transaction in `frameId`: a sphere at each added
 * position variable, an arrow along each added 2D orientation at the position of the same stamp,
 * a line through the positions each added constraint links (motion models link consecutive
 * states), and a text naming the sensor and counting what it added. The entity id is
 * `transaction/<source>`, so each sensor's newest transaction replaces its previous one.
 */
export function transactionSceneMessage(tx: TransactionPreview, frameId: string = FUSED_FRAMES.world): Record<string, unknown> {
  const timestamp = tx.stamp;
  const positions = new Map<string, { x: number; y: number; z: number }>();
  const positionAt = new Map<string | number, { x: number; y: number; z: number }>();
  const yawAt: { stamp: string | number; yaw: number }[] = [];
  for (const v of tx.addedVariables) {
    if (POSITION_TYPES.has(v.type) && v.data.length >= 2) {
      const p = { x: v.data[0]!, y: v.data[1]!, z: v.data[2] ?? 0 };
      positions.set(v.uuid, p);
      if (v.stamp != undefined) {
        positionAt.set(v.stamp, p);
      }
    } else if (v.type === ORIENTATION_2D && v.data.length >= 1 && v.stamp != undefined) {
      yawAt.push({ stamp: v.stamp, yaw: v.data[0]! });
    }
  }
  const color = { r: 0.15, g: 0.4, b: 0.95, a: 0.85 };
  const spheres = [...positions.values()].map((p) => ({
    pose: { position: p, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    size: { x: SPHERE, y: SPHERE, z: SPHERE },
    color,
  }));
  const arrows = yawAt.flatMap(({ stamp, yaw }) => {
    const p = positionAt.get(stamp);
    if (p == undefined) {
      return [];
    }
    return [{ pose: poseOf({ ...p, yaw }), shaft_length: 0.3, shaft_diameter: 0.03, head_length: 0.1, head_diameter: 0.08, color }];
  });
  const lines = tx.addedConstraints.flatMap((c) => {
    const points = c.variables.map((u) => positions.get(u)).filter((p) => p != undefined);
    if (points.length < 2) {
      return [];
    }
    return [
      {
        type: 0, // LINE_STRIP
        pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
        thickness: 0.02,
        scale_invariant: false,
        points,
        color: { r: 0.95, g: 0.55, b: 0.1, a: 0.9 },
        colors: [],
        indices: [],
      },
    ];
  });
  const anchor = [...positions.values()][0] ?? { x: 0, y: 0, z: 0 };
  const texts = [
    {
      pose: { position: { ...anchor, z: anchor.z + 0.3 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
      billboard: true,
      font_size: 12,
      scale_invariant: true,
      color: { r: 1, g: 1, b: 1, a: 1 },
      text: `${tx.source}: ${tx.addedVariables.length} variables, ${tx.addedConstraints.length} constraints`,
    },
  ];
  return {
    deletions: [],
    entities: [
      {
        timestamp,
        frame_id: frameId,
        id: `transaction/${tx.source}`,
        lifetime: { sec: 0, nsec: 0 },
        frame_locked: false,
        metadata: [
          { key: "source", value: tx.source },
          { key: "stamp", value: (BigInt(timestamp.sec) * 1_000_000_000n + BigInt(timestamp.nsec)).toString() },
        ],
        arrows,
        cubes: [],
        spheres,
        cylinders: [],
        lines,
        triangles: [],
        texts,
        models: [],
      },
    ],
  };
}
