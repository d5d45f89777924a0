import { familyDescriptor, familySensorModel, PLANAR_POSE_PATH } from "./FamilySensorModel";
import type { CommonSensorOptions } from "./Fuse2DSensorModel";
import type { PosePathOptions } from "./common/PosePath";
import { ODOMETRY_FAMILY, type FamilyMessage, type OdometryDimension, type OdometryOptions } from "./common/sensorFamilies";

/** fuse_models::Odometry2D parameters (reference/fuse.md §3.1): the odometry family's, plus differential mode. */
export interface Odometry2DOptions extends CommonSensorOptions, PosePathOptions, OdometryOptions {}

/**
 * fuse_models::Odometry2D on nav_msgs/Odometry (reference/fuse.md §3.1): absolute pose
 * (Position2D + Orientation2D + AbsolutePose2DStampedConstraint) or differential pose
 * (RelativePose2DStampedConstraint between consecutive kept messages; the first is only stored),
 * plus absolute linear/angular velocity constraints. Twist is only rotated into its target frame.
 */
export class Odometry2D extends familySensorModel<Odometry2DOptions, FamilyMessage, OdometryDimension>(ODOMETRY_FAMILY, PLANAR_POSE_PATH) {}

/** fuse_models::Odometry2D's plugin descriptor. */
export const ODOMETRY_2D = familyDescriptor(Odometry2D, "fuse_models::Odometry2D", "2D pose and twist from nav_msgs/Odometry (absolute or differential pose, absolute twist)");
