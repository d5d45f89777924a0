// Lockstep in Lichtblick 1.10.0 web (../shared/hosts): MCAP (its remote-file source cannot open a .bag by URL).
import { APPS } from "./realApp";
import { realAppSuite } from "./realAppSuite";

realAppSuite(APPS.lichtblick, "Lockstep in Lichtblick 1.10.0", [{ relative: "ros2/husky-2015.mcap", label: "husky MCAP" }]);
