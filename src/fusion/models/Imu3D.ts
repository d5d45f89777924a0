import { familyDescriptor, familySensorModel, SPATIAL_ABSOLUTE_POSE } from "./FamilySensorModel";
import type { CommonSensorOptions } from "./Fuse2DSensorModel";
import { IMU_FAMILY, type ImuDimension, type ImuMeasurements, type ImuOptions } from "./common/sensorFamilies";

/** fuse_models::Imu3D parameters: the IMU family's. */
export interface Imu3DOptions extends CommonSensorOptions, ImuOptions {}

/**
 * fuse_models::Imu3D on sensor_msgs/Imu: orientation on the selected roll/pitch/yaw
 * (Orientation3D + AbsoluteOrientation3DStampedEulerConstraint, the orientation moved into its
 * target frame), angular velocity (VelocityAngular3D) and linear acceleration
 * (AccelerationLinear3D; with `removeGravitationalAcceleration`, gravity (0, 0, g) rotated into
 * the IMU frame by the measured orientation's inverse is subtracted first), each on the selected
 * axes and rotated into its target frame. Differential mode is not supported yet.
 */
export class Imu3D extends familySensorModel<Imu3DOptions, ImuMeasurements, ImuDimension>(IMU_FAMILY, SPATIAL_ABSOLUTE_POSE) {}

/** fuse_models::Imu3D's plugin descriptor. */
export const IMU_3D = familyDescriptor(Imu3D, "fuse_models::Imu3D", "3D orientation, angular velocity and linear acceleration from sensor_msgs/Imu");
