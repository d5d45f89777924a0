/**
 * What the recording argument of `analyze`, `doctor`, `info` and `serve` accepts, as their help
 * says it: every format `openRecording` reads.
 */
export const RECORDING_ARGUMENT = "a ROS 1 bag, an MCAP file, a rosbag2 bag folder or .db3 file";
