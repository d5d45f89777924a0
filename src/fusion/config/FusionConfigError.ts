/** A fusion config problem, naming the JSON path of the offending field and what to do. */
export class FusionConfigError extends Error {
  /** JSON path, e.g. "fusion.sensors.imu.orientationDimensions[0]". */
  public readonly path: string;

  public constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = "FusionConfigError";
    this.path = path;
  }
}
