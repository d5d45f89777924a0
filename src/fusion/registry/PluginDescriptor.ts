import type { ParameterSpec } from "./parameters";
import type { MotionModel, SensorModel } from "../core";

/**
 * A sensor model as fuse's plugin manifest describes it: the class name users write as `type`,
 * what it is for, the message types it reads, its parameters, and how to build it from validated
 * parameters (durations in ns, defaults not filled in: the class applies fuse's defaults).
 */
export interface SensorDescriptor {
  readonly role: "sensor";
  /** fuse class name, e.g. "fuse_models::Odometry3D". */
  readonly type: string;
  readonly help: string;
  /**
   * ROS message types the sensor reads (ROS 1 spelling, "nav_msgs/Odometry"); a topic with another
   * type is a config error.
   */
  readonly messageTypes: readonly string[];
  /** The topic when none is configured (the ignition sensors' `set_pose`); undefined = required. */
  readonly defaultTopic?: string;
  readonly parameters: readonly ParameterSpec[];
  create(params: Readonly<Record<string, unknown>>): SensorModel;
}

/** A motion model (fuse_models' Unicycle2D, Omnidirectional3D …), see SensorDescriptor. */
export interface MotionModelDescriptor {
  readonly role: "motion";
  readonly type: string;
  readonly help: string;
  readonly parameters: readonly ParameterSpec[];
  create(params: Readonly<Record<string, unknown>>): MotionModel;
}

/** Any registered plugin. */
export type PluginDescriptor = SensorDescriptor | MotionModelDescriptor;
