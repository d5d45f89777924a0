// Test fixtures: the message definition of a stamped value, `test_msgs/Value` (a header and one
// float64), as ROS 1 and ROS 2 write it into a recording.

/** The ROS 1 definition (msg text with the std_msgs/Header dependency appended). */
export const ROS1_VALUE_DEFINITION = `Header header
float64 value
================================================================================
MSG: std_msgs/Header
uint32 seq
time stamp
string frame_id`;

/** The ROS 2 definition (builtin_interfaces/Time has `nanosec`). */
export const ROS2_VALUE_DEFINITION = `std_msgs/Header header
float64 value
================================================================================
MSG: std_msgs/Header
builtin_interfaces/Time stamp
string frame_id
================================================================================
MSG: builtin_interfaces/Time
int32 sec
uint32 nanosec`;
