import { familyDescriptor, familySensorModel, SPATIAL_ABSOLUTE_POSE } from "./FamilySensorModel";
import type { CommonSensorOptions } from "./Fuse2DSensorModel";
import { ODOMETRY_FAMILY, type FamilyMessage, type OdometryDimension, type OdometryOptions } from "./common/sensorFamilies";

/** fuse_models::Odometry3D parameters: the odometry family's. */
export interface Odometry3DOptions extends CommonSensorOptions, OdometryOptions {}

/**
 * fuse_models::Odometry3D on nav_msgs/Odometry: absolute pose on the selected axes
 * (Position3D + Orientation3D + AbsolutePose3DStampedConstraint, or orientation alone with the
 * Euler constraint) and absolute linear / angular velocity on the selected axes (twist only
 * rotated into its target frame). Differential mode is not supported yet (a config error).
 */
export class Odometry3D extends familySensorModel<Odometry3DOptions, FamilyMessage, OdometryDimension>(ODOMETRY_FAMILY, SPATIAL_ABSOLUTE_POSE) {}

/** fuse_models::Odometry3D's plugin descriptor. */
export const ODOMETRY_3D = familyDescriptor(Odometry3D, "fuse_models::Odometry3D", "3D pose and twist from nav_msgs/Odometry (absolute, selected axes)");
