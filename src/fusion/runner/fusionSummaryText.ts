import type { FusedPose } from "./FusionRunner";

/**
 * "15816 transactions (ignition 1, wheel_odometry 3952, imu 11863)": the count and each sensor's
 * share, in the order the sensors first sent one. The CLI's summary and the panel say it alike.
 */
export function transactionCountText(count: number, bySensor: Iterable<readonly [string, number]>): string {
  const perSensor = namedCounts(bySensor);
  return `${count} ${count === 1 ? "transaction" : "transactions"}${perSensor === "" ? "" : ` (${perSensor})`}`;
}

/**
 * "final pose at STAMP: x -39.891 m, y -77.102 m, yaw 2.8787 rad", with z, roll and pitch when the
 * pose leaves the plane (a 3D state). `stamp` is the pose's stamp as the caller shows stamps.
 */
export function finalPoseText(pose: FusedPose, stamp: string): string {
  const planar = pose.z === 0 && pose.roll === 0 && pose.pitch === 0;
  return (
    `final pose at ${stamp}: x ${pose.x.toFixed(3)} m, y ${pose.y.toFixed(3)} m, ` +
    (planar ? "" : `z ${pose.z.toFixed(3)} m, roll ${pose.roll.toFixed(4)} rad, pitch ${pose.pitch.toFixed(4)} rad, `) +
    `yaw ${pose.yaw.toFixed(4)} rad`
  );
}

/** "too-late 2, max-age 1": drop counts by reason, in the order the reasons first occurred. */
export function dropCountText(byReason: Iterable<readonly [string, number]>): string {
  return namedCounts(byReason);
}

/** "a 1, b 2": named counts in their order. */
function namedCounts(counts: Iterable<readonly [string, number]>): string {
  return [...counts].map(([name, n]) => `${name} ${n}`).join(", ");
}
