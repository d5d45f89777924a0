import fuseTutorial from "../../../config/fuse-simple-tutorial.json";
import husky from "../../../config/husky.json";
import jackal3d from "../../../config/jackal-3d.json";

/** The presets from config/*.json, by the name the settings editor shows. */
export const PRESETS: Readonly<Record<string, unknown>> = {
  "husky (IMU + odometry + GPS, fkie ApproximateTime)": husky,
  "fuse simple tutorial (TurtleBot3 odom + IMU, fusion)": fuseTutorial,
  "jackal 3D (IMU + odometry, Omnidirectional3D fusion)": jackal3d,
};
