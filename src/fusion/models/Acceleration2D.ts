import type { LossConfig, SensorMessage, Transaction } from "../core";
import { Fuse2DSensorModel, type CommonSensorOptions } from "./Fuse2DSensorModel";
import { dimensionIndices, PLANAR_AXES } from "./common/dimensions";
import { asObject, readVectorPairWithCovariance } from "./common/rosMessages";
import { processAccel } from "./common/sensorProc";
import type { SensorDescriptor } from "../registry/PluginDescriptor";
import { LINEAR_2D, SENSOR_COMMON, dims, loss } from "../registry/commonParameters";

/** fuse_models::Acceleration2D parameters (reference/fuse.md §3.5). */
export interface Acceleration2DOptions extends CommonSensorOptions {
  /** `dimensions` ("x", "y"). */
  readonly dimensions?: readonly string[];
  /** `target_frame`; default "" (message frame). Rotation only. */
  readonly targetFrame?: string;
  readonly loss?: LossConfig | null;
}

/** fuse_models::Acceleration2D on geometry_msgs/AccelWithCovarianceStamped. */
export class Acceleration2D extends Fuse2DSensorModel<Acceleration2DOptions> {
  readonly #idx: readonly number[];

  public constructor(options: Acceleration2DOptions) {
    super(options);
    this.#idx = dimensionIndices(options, PLANAR_AXES, { dimensions: "linear" }).dimensions;
  }

  protected override process(event: SensorMessage, stamp: number, frameId: string, tx: Transaction): void {
    const accel = readVectorPairWithCovariance(asObject(event.message).accel, "accel", stamp, frameId);
    processAccel(this.env, accel, this.options.loss ?? null, this.options.targetFrame ?? "", this.#idx, tx);
  }
}

/** fuse_models::Acceleration2D's plugin descriptor. */
export const ACCELERATION_2D: SensorDescriptor = {
  role: "sensor",
  type: "fuse_models::Acceleration2D",
  help: "2D linear acceleration from geometry_msgs/AccelWithCovarianceStamped",
  messageTypes: ["geometry_msgs/AccelWithCovarianceStamped"],
  parameters: [
    ...SENSOR_COMMON,
    dims("dimensions", LINEAR_2D, "acceleration axes"),
    { name: "targetFrame", type: { kind: "string" }, default: "", help: "rotate the acceleration into this frame" },
    loss("loss", "acceleration"),
  ],
  create: (p) => new Acceleration2D(p as unknown as Acceleration2DOptions),
};
