import type { LossConfig, SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { dimensionIndices, PLANAR_AXES } from "./common/dimensions";
import { asObject, readVectorPairWithCovariance } from "./common/rosMessages";
import { processTwist } from "./common/sensorProc";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { ANGULAR_2D, LINEAR_2D, SENSOR_COMMON, dims, loss } from "../registry/commonParameters";

/** fuse_models::Twist2D parameters (reference/fuse.md §3.4). */
export interface Twist2DOptions extends CommonSensorOptions {
  readonly linearDimensions?: readonly string[];
  readonly angularDimensions?: readonly string[];
  /** `target_frame`; default "" (message frame). Rotation only. */
  readonly targetFrame?: string;
  readonly linearLoss?: LossConfig | null;
  readonly angularLoss?: LossConfig | null;
}

/** fuse_models::Twist2D on geometry_msgs/TwistWithCovarianceStamped: absolute velocity constraints. */
export class Twist2D extends Fuse2DSensorModel<Twist2DOptions> {
  readonly #dimensions: Readonly<Record<"linearDimensions" | "angularDimensions", readonly number[]>>;

  public constructor(options: Twist2DOptions) {
    super(options);
    this.#dimensions = dimensionIndices(options, PLANAR_AXES, { linearDimensions: "linear", angularDimensions: "angular" });
  }

  protected override process(event: SensorMessage, stamp: number, frameId: string, tx: Transaction): void {
    const o = this.options;
    const twist = readVectorPairWithCovariance(asObject(event.message).twist, "twist", stamp, frameId);
    const d = this.#dimensions;
    processTwist(this.env, twist, o.linearLoss ?? null, o.angularLoss ?? null, o.targetFrame ?? "", d.linearDimensions, d.angularDimensions, tx);
  }
}

/** fuse_models::Twist2D's plugin descriptor. */
export const TWIST_2D: SensorDescriptor = {
  role: "sensor",
  type: "fuse_models::Twist2D",
  help: "2D twist from geometry_msgs/TwistWithCovarianceStamped",
  messageTypes: ["geometry_msgs/TwistWithCovarianceStamped"],
  parameters: [
    ...SENSOR_COMMON,
    dims("linearDimensions", LINEAR_2D, "linear velocity axes"),
    dims("angularDimensions", ANGULAR_2D, "angular velocity axes"),
    { name: "targetFrame", type: { kind: "string" }, default: "", help: "rotate the twist into this frame" },
    loss("linearLoss", "linear velocity"),
    loss("angularLoss", "angular velocity"),
  ],
  create: (p) => new Twist2D(p as unknown as Twist2DOptions),
};
