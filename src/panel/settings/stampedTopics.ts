import type { Topic } from "@foxglove/extension";

/** ROS message types (package/Name) that carry a std_msgs/Header, the stamp the pipeline reads. */
const STAMPED_ROS_TYPES = new Set([
  "sensor_msgs/Imu",
  "sensor_msgs/NavSatFix",
  "sensor_msgs/Image",
  "sensor_msgs/CompressedImage",
  "sensor_msgs/CameraInfo",
  "sensor_msgs/LaserScan",
  "sensor_msgs/PointCloud",
  "sensor_msgs/PointCloud2",
  "sensor_msgs/JointState",
  "sensor_msgs/MagneticField",
  "sensor_msgs/FluidPressure",
  "sensor_msgs/Temperature",
  "sensor_msgs/Range",
  "sensor_msgs/Illuminance",
  "sensor_msgs/RelativeHumidity",
  "sensor_msgs/TimeReference",
  "sensor_msgs/BatteryState",
  "sensor_msgs/Joy",
  "sensor_msgs/MultiEchoLaserScan",
  "nav_msgs/Odometry",
  "nav_msgs/Path",
  "nav_msgs/OccupancyGrid",
  "nav_msgs/GridCells",
  "visualization_msgs/Marker",
  "std_msgs/Header",
]);

/** `sensor_msgs/msg/Imu` (ROS 2) and `sensor_msgs/Imu` (ROS 1) name the same type. */
function rosTypeName(schemaName: string): string {
  return schemaName.replace(/\/msg\//, "/");
}

/**
 * Whether messages of this schema carry a header stamp the pipeline can read: the ROS types with
 * a std_msgs/Header (every `*Stamped` type included) and Foxglove schemas (their `timestamp`).
 */
export function hasHeaderStamp(schemaName: string): boolean {
  const name = rosTypeName(schemaName);
  return STAMPED_ROS_TYPES.has(name) || name.endsWith("Stamped") || name.startsWith("foxglove.");
}

/** The data source's topics whose messages carry header stamps, in the host's order. */
export function stampedTopics(topics: readonly Topic[] | undefined): Topic[] {
  return (topics ?? []).filter((t) => hasHeaderStamp(t.schemaName));
}

/** Presets whose every input topic is in the data source. */
export function matchingPresets(presets: Readonly<Record<string, unknown>>, topics: readonly Topic[] | undefined): string[] {
  const names = new Set((topics ?? []).map((t) => t.name));
  return Object.entries(presets)
    .filter(([, preset]) => {
      const inputs = (preset as { inputs?: { topic?: unknown }[] }).inputs ?? [];
      return inputs.length > 0 && inputs.every((i) => typeof i.topic === "string" && names.has(i.topic));
    })
    .map(([name]) => name);
}
