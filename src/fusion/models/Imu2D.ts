import { familyDescriptor, familySensorModel, PLANAR_POSE_PATH } from "./FamilySensorModel";
import type { CommonSensorOptions } from "./Fuse2DSensorModel";
import type { PosePathOptions } from "./common/PosePath";
import { IMU_FAMILY, type ImuDimension, type ImuMeasurements, type ImuOptions } from "./common/sensorFamilies";

/** fuse_models::Imu2D parameters (reference/fuse.md §3.2): the IMU family's, plus differential mode. */
export interface Imu2DOptions extends CommonSensorOptions, PosePathOptions, ImuOptions {}

/**
 * fuse_models::Imu2D on sensor_msgs/Imu (reference/fuse.md §3.2): orientation through the pose
 * path with no position indices (so Position2D at (0, 0) is added too), angular velocity, and
 * linear acceleration (optionally gravity-compensated in the IMU frame, then rotated).
 */
export class Imu2D extends familySensorModel<Imu2DOptions, ImuMeasurements, ImuDimension>(IMU_FAMILY, PLANAR_POSE_PATH) {}

/** fuse_models::Imu2D's plugin descriptor. */
export const IMU_2D = familyDescriptor(Imu2D, "fuse_models::Imu2D", "yaw, yaw rate and planar acceleration from sensor_msgs/Imu");
