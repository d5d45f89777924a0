// Public face of the rclpy message_filters policies.
export { ApproximateTime, type PythonApproximateTimeOptions } from "./ApproximateTime";
export { ExactTime, type PythonExactTimeOptions } from "./ExactTime";
