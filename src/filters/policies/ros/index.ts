// Public face of the ROS 2 message_filters (C++) policies.
export { ApproximateEpsilonTime, type RosApproximateEpsilonTimeOptions } from "./ApproximateEpsilonTime";
export { ApproximateTime, type RosApproximateTimeOptions } from "./ApproximateTime";
export { ExactTime, type PartialTuple, type RosExactTimeOptions } from "./ExactTime";
export { LatestTime, type LatestTimeRateConfig, type RosLatestTimeOptions } from "./LatestTime";
