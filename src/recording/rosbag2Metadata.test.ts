import { describe, expect, it } from "vitest";

import { parseRosbag2Metadata } from "./rosbag2Metadata";
import { metadataYaml } from "./testing/rosbag2Fixtures";

const TOPICS = [{ name: "/a", type: "std_msgs/msg/String", count: 1 }];

describe("parseRosbag2Metadata", () => {
  it("takes the storage files of an ordinary bag", () => {
    expect(parseRosbag2Metadata(metadataYaml({ files: ["b_0.db3", "b_1.db3"], topics: TOPICS })).files).toEqual(["b_0.db3", "b_1.db3"]);
  });

  it("refuses a file outside the bag folder, and a file listed twice, naming the entry", () => {
    expect(() => parseRosbag2Metadata(metadataYaml({ files: ["../../husky.mcap"], topics: TOPICS }))).toThrow(
      /relative_file_paths\[0\] is "\.\.\/\.\.\/husky\.mcap", not a file inside the bag folder/,
    );
    expect(() => parseRosbag2Metadata(metadataYaml({ files: ["/etc/passwd"], topics: TOPICS }))).toThrow(/not a file inside the bag folder/);
    expect(() => parseRosbag2Metadata(metadataYaml({ files: ["b_0.db3", "b_0.db3"], topics: TOPICS }))).toThrow(/relative_file_paths lists "b_0\.db3" twice/);
  });

  it("names a missing field as missing, not as the string \"undefined\"", () => {
    const yaml = metadataYaml({ files: ["b_0.db3"], topics: TOPICS }).replace(/^ {2}storage_identifier: .*\n/m, "");
    expect(() => parseRosbag2Metadata(yaml)).toThrow(/storage_identifier is missing \(a string is required\)/);
  });
});
