// Test helpers for the runner: a synthetic 10 Hz odometry session (planar, or through the 3D
// models), the messages and the config, so every runner test builds the same session the same way.

/** The header stamps' base (whole seconds): husky-2015's first second. */
export const SESSION_BASE_SEC = 1_432_235_497;

/** A ROS 6×6 covariance (36 values, row-major) with `d` on its diagonal. */
export function diagonalCovariance6(d: readonly number[]): number[] {
  const c = new Array<number>(36).fill(0);
  d.forEach((v, i) => (c[i * 7] = v));
  return c;
}

/** The session's nav_msgs/Odometry twist: forward speed (m/s) and yaw rate (rad/s). */
export interface OdometryTwist {
  readonly vx?: number;
  readonly wz?: number;
}

/**
 * An odometry message stamped `rel` ns after SESSION_BASE_SEC: pose at the origin (covariance 1),
 * driving `vx` = 1 m/s and turning `wz` = 0.1 rad/s by default, twist covariance 0.01 on the
 * velocities used (vx, vy, vyaw) and 1 elsewhere.
 */
export function odometryMessage(rel: number, twist: OdometryTwist = {}): unknown {
  return {
    header: { stamp: { sec: SESSION_BASE_SEC + Math.floor(rel / 1e9), nsec: rel % 1e9 }, frame_id: "odom" },
    child_frame_id: "base_link",
    pose: {
      pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
      covariance: diagonalCovariance6([1, 1, 1, 1, 1, 1]),
    },
    twist: {
      twist: { linear: { x: twist.vx ?? 1, y: 0, z: 0 }, angular: { x: 0, y: 0, z: twist.wz ?? 0.1 } },
      covariance: diagonalCovariance6([0.01, 0.01, 1, 1, 1, 0.01]),
    },
  };
}

/** The motion and sensor models of the session, planar or through the 3D models. */
const SESSION_MODELS = {
  planar: { motionName: "unicycle", motionType: "fuse_models::Unicycle2D", stateSize: 8, sensorType: "fuse_models::Odometry2D", linear: ["x", "y"] },
  spatial: { motionName: "omnidirectional", motionType: "fuse_models::Omnidirectional3D", stateSize: 15, sensorType: "fuse_models::Odometry3D", linear: ["x", "y", "z"] },
} as const;

function odometrySession(lag: string, space: keyof typeof SESSION_MODELS): Record<string, unknown> {
  const m = SESSION_MODELS[space];
  return {
    uuidRecipe: "ros1",
    optimizer: { type: "fixed-lag", lag, updatePeriod: "100ms", transactionTimeout: "10ms" },
    motionModels: { [m.motionName]: { type: m.motionType, processNoiseDiagonal: new Array<number>(m.stateSize).fill(0.1) } },
    sensors: {
      odom: {
        type: m.sensorType,
        motionModels: [m.motionName],
        topic: "/odom",
        linearVelocityDimensions: [...m.linear],
        angularVelocityDimensions: ["yaw"],
      },
    },
  };
}

/** The fusion config of the session: Unicycle2D + Odometry2D (vx, vy, vyaw) on /odom, fixed-lag. */
export function odometry2DSession(lag: string): Record<string, unknown> {
  return odometrySession(lag, "planar");
}

/** The same session through the 3D models: Omnidirectional3D + Odometry3D (vx, vy, vz, vyaw). */
export function odometry3DSession(lag: string): Record<string, unknown> {
  return odometrySession(lag, "spatial");
}
