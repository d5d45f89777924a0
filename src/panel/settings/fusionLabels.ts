/**
 * Short labels for the fusion config's keys, as the settings sidebar shows them (it cuts labels
 * at about 14 characters, so keys sharing a long prefix such as orientationTargetFrame and
 * orientationTransform need labels that differ early). Keys not listed get their words split
 * ("someNewKey" → "Some new key").
 */
const LABELS: Readonly<Record<string, string>> = {
  topic: "Topic",
  type: "Type",
  lag: "Lag",
  updatePeriod: "Update period",
  transactionTimeout: "Txn timeout",
  publishOnStartup: "Publish at start",
  uuidRecipe: "ID recipe",
  ignition: "Ignition",
  initialState: "Initial state",
  initialSigma: "Initial σ",
  processNoiseDiagonal: "Process noise",
  linearVelocityDimensions: "Lin. vel. axes",
  angularVelocityDimensions: "Ang. vel. axes",
  linearAccelerationDimensions: "Lin. acc. axes",
  orientationDimensions: "Orient. axes",
  positionDimensions: "Position axes",
  poseDimensions: "Pose axes",
  twistTargetFrame: "Twist frame",
  accelerationTargetFrame: "Accel. frame",
  orientationTargetFrame: "Orient. frame",
  orientationTransform: "Orient. transform",
  poseTargetFrame: "Pose frame",
  removeGravitationalAcceleration: "Remove gravity",
  differential: "Differential",
  independent: "Independent",
  motionModels: "Motion models",
};

/** The ROS parameter spelling of a key (fuse's YAML), for the help text. */
function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The label and help of a fusion field: a short human label (never the raw camelCase key), and
 * a help naming the config key and fuse's parameter (so that the JSON and the fuse docs can be
 * found from the sidebar).
 */
export function fusionFieldLabel(key: string): { label: string; help: string } {
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  const label = LABELS[key] ?? words.charAt(0).toUpperCase() + words.slice(1);
  const ros = snake(key);
  return { label, help: ros === key ? key : `${key} (fuse: ${ros})` };
}
