import { describe, expect, it } from "vitest";

import { stampPathProblem } from "./stampPathCheck";
import { stampReaderFor } from "./stampSources";

/** sensor_msgs/Imu as a ROS 1 bag stores it (trimmed), with a custom time type beside. */
const IMU_ROS1 = [
  "Header header",
  "geometry_msgs/Quaternion orientation",
  "float64[9] orientation_covariance",
  "Stamp custom",
  "int64 t_ns",
  "string t_text",
  "uint8 FLAG=1",
  "================",
  "MSG: std_msgs/Header",
  "uint32 seq",
  "time stamp",
  "string frame_id",
  "================",
  "MSG: geometry_msgs/Quaternion",
  "float64 x\nfloat64 y\nfloat64 z\nfloat64 w",
  "================",
  "MSG: my_msgs/Stamp",
  "uint32 sec",
  "uint32 nsec",
].join("\n");

const IMU_ROS2 = [
  "std_msgs/Header header",
  "float64 x",
  "================",
  "MSG: std_msgs/Header",
  "builtin_interfaces/Time stamp",
  "string frame_id",
  "================",
  "MSG: builtin_interfaces/Time",
  "int32 sec",
  "uint32 nanosec",
].join("\n");

describe("stampPathProblem", () => {
  it("takes a path to a time, an integer, a string or a {sec, nsec} message", () => {
    for (const path of [".header.stamp", ".custom", ".t_ns", ".t_text", ".header.seq"]) {
      expect(stampPathProblem(path, "sensor_msgs/Imu", IMU_ROS1, "ros1"), path).toBeUndefined();
    }
    expect(stampPathProblem(".header.stamp", "sensor_msgs/msg/Imu", IMU_ROS2, "ros2")).toBeUndefined();
  });

  it("names the field that is not there and the fields that are, at any depth", () => {
    expect(stampPathProblem(".stamp", "sensor_msgs/Imu", IMU_ROS1, "ros1")).toBe(
      'sensor_msgs/Imu has no field "stamp" (its fields: header, orientation, orientation_covariance, custom, t_ns, t_text)',
    );
    expect(stampPathProblem(".header.nope", "sensor_msgs/Imu", IMU_ROS1, "ros1")).toBe('header (std_msgs/Header) has no field "nope" (its fields: seq, stamp, frame_id)');
    expect(stampPathProblem(".header.stmp", "sensor_msgs/msg/Imu", IMU_ROS2, "ros2")).toBe('header (std_msgs/Header) has no field "stmp" (its fields: stamp, frame_id)');
    // A constant is no field of a message.
    expect(stampPathProblem(".FLAG", "sensor_msgs/Imu", IMU_ROS1, "ros1")).toMatch(/^sensor_msgs\/Imu has no field "FLAG"/);
  });

  it("refuses a path ending at what is not a stamp, going on past a stamp, or through an array", () => {
    expect(stampPathProblem(".header", "sensor_msgs/Imu", IMU_ROS1, "ros1")).toBe("header is a std_msgs/Header, not a time, an integer of nanoseconds or a string of them");
    expect(stampPathProblem(".orientation.w", "sensor_msgs/Imu", IMU_ROS1, "ros1")).toBe("orientation.w is a float64, not a time, an integer of nanoseconds or a string of them");
    expect(stampPathProblem(".header.stamp.sec", "sensor_msgs/Imu", IMU_ROS1, "ros1")).toBe('header.stamp is a time, which has no field "sec"; end the path at it');
    expect(stampPathProblem(".orientation_covariance", "sensor_msgs/Imu", IMU_ROS1, "ros1")).toBe("orientation_covariance is an array (float64[]), not one stamp");
  });

  it("says nothing of a definition that does not parse (the reader names it)", () => {
    expect(stampPathProblem(".header.stamp", "x/Y", "this is not ][ a definition", "ros1")).toBeUndefined();
  });

  it("agrees with the reader: every path it takes reads the stamp of a message of that type", () => {
    const message = { header: { seq: 3, stamp: { sec: 10, nsec: 5 }, frame_id: "imu" }, custom: { sec: 11, nsec: 6 }, t_ns: 12_000_000_007, t_text: "13000000008" };
    for (const path of [".header.stamp", ".custom", ".t_ns", ".t_text"]) {
      expect(stampPathProblem(path, "sensor_msgs/Imu", IMU_ROS1, "ros1")).toBeUndefined();
      expect(typeof stampReaderFor(path)({ receiveTime: { sec: 0, nsec: 0 }, message }), path).toBe("object");
    }
  });
});
