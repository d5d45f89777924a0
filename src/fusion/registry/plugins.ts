/**
 * The plugin manifest (fuse's fuse_plugins.xml): one line per sensor or motion model. Adding a
 * model is its class, its descriptor beside it, and one line here.
 */
import { registerPlugin } from "./registry";
import { ACCELERATION_2D } from "../models/Acceleration2D";
import { IMU_2D } from "../models/Imu2D";
import { IMU_3D } from "../models/Imu3D";
import { ODOMETRY_2D } from "../models/Odometry2D";
import { ODOMETRY_3D } from "../models/Odometry3D";
import { OMNIDIRECTIONAL_3D_IGNITION } from "../models/Omnidirectional3DIgnition";
import { POSE_2D } from "../models/Pose2D";
import { TWIST_2D } from "../models/Twist2D";
import { UNICYCLE_2D_IGNITION } from "../models/Unicycle2DIgnition";
import { OMNIDIRECTIONAL_3D } from "../motion/Omnidirectional3D";
import { UNICYCLE_2D } from "../motion/Unicycle2D";

registerPlugin(ODOMETRY_2D);
registerPlugin(IMU_2D);
registerPlugin(POSE_2D);
registerPlugin(TWIST_2D);
registerPlugin(ACCELERATION_2D);
registerPlugin(UNICYCLE_2D_IGNITION);
registerPlugin(UNICYCLE_2D);
registerPlugin(ODOMETRY_3D);
registerPlugin(IMU_3D);
registerPlugin(OMNIDIRECTIONAL_3D_IGNITION);
registerPlugin(OMNIDIRECTIONAL_3D);
