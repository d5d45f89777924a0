import type { RecordingInfo } from "./types";

/** What a recording is, in words: "ROS 1 bag", "MCAP (ros2)", "rosbag2 (ros2)". */
export function formatName(info: Pick<RecordingInfo, "format" | "profile">): string {
  const name = info.format === "ros1bag" ? "ROS 1 bag" : info.format === "rosbag2" ? "rosbag2" : "MCAP";
  return info.format === "ros1bag" || info.profile == undefined ? name : `${name} (${info.profile})`;
}
