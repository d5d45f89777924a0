import type { RingBuffer } from "./RingBuffer";
import { wrapAngle, type RAW_PLACEMENTS } from "../../pipeline";
import type { Pose2D } from "../engine/engineTypes";

/**
 * Where a raw odometry track meets the track it is compared with, for a comparison of their
 * shapes: a pose of that track (`target`) and the raw track's pose at the same stamp (`raw`).
 * With fusion, the target is one of the fused trajectory's first poses since the results were
 * reset (see `startAnchor`): fuse starts from its ignition pose (the origin in the presets)
 * wherever the robot is, so on a robot that has already moved (a live session joined mid-run) the
 * two tracks start metres apart. Without fusion, it is the first odometry input's pose where both
 * tracks have begun (see `trackAnchor`): two odometry sources seldom share a frame (wheel odometry
 * in `odom`, visual odometry in UTM). Mapping `raw` onto `target`, as `evo --align_origin` does,
 * overlays them.
 */
export interface StartAnchor {
  readonly raw: Pose2D;
  readonly target: Pose2D;
}

/**
 * Where the trajectory tab draws raw odometry (one of the pipeline config's `RAW_PLACEMENTS`):
 * where it was recorded, or moved rigidly onto the start of the track it is compared with (the
 * fused one, or without fusion the first odometry input).
 */
export type RawPlacement = (typeof RAW_PLACEMENTS)[number];

/**
 * The pose at `stamp` (relative ns) from `poses`: interpolated between the nearest poses before and
 * after it (position linearly, yaw along the shorter arc), the nearest one when the stamp lies
 * outside them, undefined when there are none. Stamps need not be in order.
 */
export function poseAt(poses: RingBuffer<Pose2D>, stamp: number): Pose2D | undefined {
  let before: Pose2D | undefined;
  let after: Pose2D | undefined;
  for (let i = 0; i < poses.size; i++) {
    const p = poses.at(i)!;
    if (p.stamp <= stamp && (before == undefined || p.stamp > before.stamp)) {
      before = p;
    }
    if (p.stamp >= stamp && (after == undefined || p.stamp < after.stamp)) {
      after = p;
    }
  }
  if (before == undefined || after == undefined || before.stamp === after.stamp) {
    const p = before ?? after;
    return p && { stamp, x: p.x, y: p.y, yaw: p.yaw };
  }
  const f = (stamp - before.stamp) / (after.stamp - before.stamp);
  return {
    stamp,
    x: before.x + f * (after.x - before.x),
    y: before.y + f * (after.y - before.y),
    yaw: wrapAngle(before.yaw + f * wrapAngle(after.yaw - before.yaw)),
  };
}

/**
 * How many of the first fused poses the anchor is chosen from. fuse publishes its ignition pose
 * first: the preset's origin heading 0 wherever the robot heads (on husky joined 200 s in, 0 rad
 * against −3.089 rad from the next pose on), so one pose alone can turn the raw track half round.
 */
export const START_POSES = 5;

/** Whether `raw` holds a pose at or after `stamp` (a later pose can no longer change `poseAt`). */
export function rawReaches(raw: RingBuffer<Pose2D>, stamp: number): boolean {
  for (let i = raw.size - 1; i >= 0; i--) {
    if (raw.at(i)!.stamp >= stamp) {
      return true;
    }
  }
  return false;
}

/**
 * The anchor among `fusedStarts` (the first fused poses, at most START_POSES are read) whose
 * heading difference to the raw odometry at its stamp is the medoid of all of theirs (the one
 * nearest to the others, along the circle): the pair that agrees with most, whatever one outlier
 * such as the ignition pose says. Only fused poses that a raw pose at or after their stamp has
 * reached take part; undefined when none has (or there is no raw odometry).
 */
export function startAnchor(raw: RingBuffer<Pose2D>, fusedStarts: readonly Pose2D[]): StartAnchor | undefined {
  const pairs: StartAnchor[] = [];
  for (const fused of fusedStarts.slice(0, START_POSES)) {
    const at = rawReaches(raw, fused.stamp) ? poseAt(raw, fused.stamp) : undefined;
    if (at) {
      pairs.push({ raw: at, target: fused });
    }
  }
  const turns = pairs.map((p) => p.target.yaw - p.raw.yaw);
  let best: StartAnchor | undefined;
  let bestSpread = Infinity;
  pairs.forEach((pair, i) => {
    const spread = turns.reduce((sum, t) => sum + Math.abs(wrapAngle(t - turns[i]!)), 0);
    if (spread < bestSpread) {
      best = pair;
      bestSpread = spread;
    }
  });
  return best;
}

/** The earliest stamp in `poses` (they need not be in order); undefined when there are none. */
function firstStamp(poses: RingBuffer<Pose2D>): number | undefined {
  let first: number | undefined;
  for (let i = 0; i < poses.size; i++) {
    const stamp = poses.at(i)!.stamp;
    if (first == undefined || stamp < first) {
      first = stamp;
    }
  }
  return first;
}

/**
 * Without fusion: where `raw` meets `reference` (the first odometry input's track), at the later
 * of the two tracks' first stamps, so that neither pose is extrapolated; undefined until both
 * tracks hold a pose at or after that stamp (until then a later pose could still move it).
 */
export function trackAnchor(raw: RingBuffer<Pose2D>, reference: RingBuffer<Pose2D>): StartAnchor | undefined {
  const rawFirst = firstStamp(raw);
  const referenceFirst = firstStamp(reference);
  if (rawFirst == undefined || referenceFirst == undefined) {
    return undefined;
  }
  const stamp = Math.max(rawFirst, referenceFirst);
  if (!rawReaches(raw, stamp) || !rawReaches(reference, stamp)) {
    return undefined;
  }
  return { raw: poseAt(raw, stamp)!, target: poseAt(reference, stamp)! };
}

/**
 * The rigid motion of the plane that takes `anchor.raw` onto `anchor.target` (position and yaw),
 * applied to a raw pose: distances and turns along the raw track are kept.
 */
export function alignToStart(anchor: StartAnchor): (p: Pose2D) => Pose2D {
  const turn = anchor.target.yaw - anchor.raw.yaw;
  const c = Math.cos(turn);
  const s = Math.sin(turn);
  const { raw, target } = anchor;
  return (p) => {
    const dx = p.x - raw.x;
    const dy = p.y - raw.y;
    return { stamp: p.stamp, x: target.x + c * dx - s * dy, y: target.y + s * dx + c * dy, yaw: wrapAngle(p.yaw + turn) };
  };
}

/** How far apart (m) the two tracks start: the anchor's raw and target positions. */
export function startGap(anchor: StartAnchor): number {
  return Math.hypot(anchor.raw.x - anchor.target.x, anchor.raw.y - anchor.target.y);
}
