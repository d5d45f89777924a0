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
    expect(() => parseRosbag2Metadata(yaml.replace(/^ {2}version: .*\n/m, ""))).toThrow(/version is missing \(a count is required\)$/);
  });

  it("names a field that holds a number or a map where a string belongs, and its value", () => {
    const yaml = metadataYaml({ files: ["b_0.db3"], topics: TOPICS });
    expect(() => parseRosbag2Metadata(yaml.replace("    - b_0.db3", "    - 12345"))).toThrow(
      /^metadata\.yaml: rosbag2_bagfile_information\.relative_file_paths\[0\] must be a string, found 12345$/,
    );
    expect(() => parseRosbag2Metadata(yaml.replace("storage_identifier: sqlite3", "storage_identifier: 42"))).toThrow(
      /^metadata\.yaml: rosbag2_bagfile_information\.storage_identifier must be a string, found 42$/,
    );
    expect(() => parseRosbag2Metadata(yaml.replace("storage_identifier: sqlite3", "storage_identifier: { id: 7, name: x }"))).toThrow(
      /storage_identifier must be a string, found \{"id":"7","name":"x"\}$/,
    );
    expect(() => parseRosbag2Metadata(yaml.replace("version: 5", "version: nine"))).toThrow(/version must be a count, found "nine"$/);
  });
});
