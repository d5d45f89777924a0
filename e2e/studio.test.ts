// Lockstep in Foxglove Studio 1.76.0 web (../shared/hosts): the ROS 1 bag and the ROS 2 MCAP.
import { APPS } from "./realApp";
import { realAppSuite } from "./realAppSuite";

realAppSuite(APPS.studio, "Lockstep in Foxglove Studio 1.76.0", [
  { relative: "husky-2015.bag", label: "husky .bag" },
  { relative: "ros2/husky-2015.mcap", label: "husky MCAP" },
]);
