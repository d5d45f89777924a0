import { statSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { describeFacts } from "./info";
import { recordingFacts, type RecordingFacts } from "../../recording";
import { openRecordingFile } from "../../recording/node";
import { loadSqlJsNode } from "../../recording/sqlJsNode";
import { writeBag } from "../../recording/testing/bagFixtures";
import { HAS_SHARED_DATA, REPO_ROOT, sharedRecording } from "../../recording/testing/paths";
import { stringMessage, writeDb3 } from "../../recording/testing/rosbag2Fixtures";
import { suiteTempDir } from "../../testing/tempDir";
import { runMain, type MainRun } from "../testing/runMain";

async function factsOf(path: string): Promise<RecordingFacts> {
  const recording = await openRecordingFile(path);
  try {
    return await recordingFacts(recording);
  } finally {
    await recording.close();
  }
}

/** `lockstep info ARGS…`: its exit code, stdout and stderr. */
async function runInfo(...args: string[]): Promise<MainRun> {
  return await runMain(["info", ...args]);
}

const tmp = suiteTempDir("lockstep-info-");

describe("lockstep info on what has no byte offset", () => {
  it("a folder without a bag is named in words, without a byte offset", async () => {
    const folder = join(tmp.path, "nothing");
    await mkdir(folder);
    const r = await runInfo(folder);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `lockstep: cannot open ${folder}: ${folder} is a folder but has no metadata.yaml and no .db3 or .mcap file ` +
        "(a rosbag2 bag folder has them; give a .bag, .mcap or .db3 file or a bag folder)\n",
    );
  });

  it("a path that does not exist, or a file it may not read, is named in words, not in the file system's codes", async () => {
    const dir = tmp.path;
    const missing = join(dir, "no-such.bag");
    let r = await runInfo(missing);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`lockstep: cannot open ${missing}: no such file or folder\n`);
    const inMissingFolder = join(dir, "no-such-folder", "a.mcap");
    r = await runInfo(inMissingFolder);
    expect(r.err).toBe(`lockstep: cannot open ${inMissingFolder}: no such file or folder\n`);
    const notAFolder = join(dir, "file.txt");
    await writeFile(notAFolder, "x");
    r = await runInfo(join(notAFolder, "a.bag"));
    expect(r.err).toBe(`lockstep: cannot open ${join(notAFolder, "a.bag")}: a part of its path is a file, not a folder\n`);
  });

  it("rosbag2 rows no reader can place: each kind is its own damage, named by file, table and row, without a byte offset", async () => {
    const SQL = await loadSqlJsNode();
    const rows = Array.from({ length: 6 }, (_, k) => ({ topicId: 1, timestamp: 1_000_000_000n + BigInt(k), data: stringMessage(`m${k}`) }));
    const db = new SQL.Database(await writeDb3([{ name: "/a", type: "std_msgs/msg/String" }], rows));
    db.exec("UPDATE messages SET topic_id = 99 WHERE id = 2; UPDATE messages SET timestamp = 'notatime' WHERE id = 4;");
    const path = join(tmp.path, "rows.db3");
    await writeFile(path, db.export());
    db.close();
    const r = await runInfo(path);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^damaged regions read past: 2 /m);
    expect(r.out).toMatch(/^\/a\n {2}type std_msgs\/msg\/String, encoding cdr, 4 messages/m);
    expect(r.err).toBe(
      `lockstep: ${path}: 2 damaged regions were skipped (` +
        "the .db3 file: message rows name a topic_id its topics table does not have: 1 skipped (the first: row 2, topic_id 99); " +
        'the .db3 file: message rows have a timestamp that is not a whole number of nanoseconds: 1 skipped (the first: row 4 on /a, timestamp "notatime")' +
        "); everything readable around them was delivered\n",
    );
  });
});

describe("lockstep info on a .db3 its recorder did not close", () => {
  it("names the write-ahead log it read in a note, and the unfinished transaction after its last commit as damage", async () => {
    const path = join(REPO_ROOT, "src/recording/testing/wal/crashed_0.db3");
    const r = await runInfo(path);
    expect(r.code).toBe(1);
    // The size is what is stored: the file and its log, not the database SQLite sees through them.
    const stored = statSync(path).size + statSync(`${path}-wal`).size;
    expect(r.out.split("\n")[0]).toBe(`${path}: rosbag2 (ros2), ${stored} bytes`);
    expect(r.out).toMatch(new RegExp(`^note: ${path} was read with the write-ahead log its writer left beside it, ${path}-wal .*: 6, with \\d+ pages;`, "m"));
    expect(r.out).toMatch(/^\/chatter\n {2}type std_msgs\/msg\/String, encoding cdr, 92 messages/m);
    expect(r.err).toMatch(new RegExp(`^lockstep: ${path}: ${path}-wal: the \\d+ bytes from byte \\d+ \\(pages: \\d+\\) were written after the log's last commit`));
  });
});

describe.skipIf(!HAS_SHARED_DATA)("lockstep info", () => {
  it("mustang-2014.bag: the ordering facts ../shared/data/README.md documents", async () => {
    const facts = await factsOf(sharedRecording("mustang-2014.bag"));
    const topic = (name: string) => facts.topics.find((t) => t.topic === name)!;
    expect(facts.messages).toBe(29_274);
    expect(topic("/xsens/imu_data").receiveTimeTies).toBe(590);
    expect(topic("/xsens/imu_data").backwardStampSteps).toBe(0);
    expect(topic("/my_odometry2imu/imu_data").backwardStampSteps).toBe(31);
    expect(topic("/my_odometry2imu/imu_data").receiveTimeTies).toBe(9_658);
    // README: latency min / median / max -205 / -5.4 / +2.6 ms; stereo odometry 106 / 154 / 387 ms.
    const xsens = topic("/xsens/imu_data").latency!;
    expect([Math.round(xsens.min / 1e6), Math.round(xsens.median / 1e5) / 10, Math.round(xsens.max / 1e5) / 10]).toEqual([-205, -5.4, 2.6]);
    const stereo = topic("/stereo_odometer/odometry").latency!;
    expect([Math.round(stereo.min / 1e6), Math.round(stereo.median / 1e6), Math.round(stereo.max / 1e6)]).toEqual([106, 154, 387]);
    expect(topic("/wheel_odometry")).toMatchObject({ type: "nav_msgs/Odometry", encoding: "ros1", messages: 1294, stampSource: "header.stamp", stampsSet: 1294 });
    expect(topic("/wheel_odometry").rateHz).toBeCloseTo(9.67, 1);
  });

  it("husky-2015 Humble folder: --json with ROS 2 types and header stamps; unreadable topics named in words", async () => {
    const { code, out } = await runInfo(sharedRecording("ros2/husky-2015-sqlite3-humble"), "--json");
    expect(code).toBe(0);
    const facts = JSON.parse(out) as RecordingFacts;
    expect(facts.format).toBe("rosbag2");
    expect(facts.topics.map((t) => [t.topic, t.type, t.encoding, t.messages, t.stampSource, t.stampsSet])).toEqual([
      ["/imu/data", "sensor_msgs/msg/Imu", "cdr", 11_865, "header.stamp", 11_865],
      ["/husky_velocity_controller/odom", "nav_msgs/msg/Odometry", "cdr", 3_952, "header.stamp", 3_952],
      ["/fix", "sensor_msgs/msg/NavSatFix", "cdr", 989, "header.stamp", 989],
    ]);
    // README: the IMU stamps are about 25 ms older than their receive times (median 25.2 ms).
    expect(Math.round(facts.topics[0]!.latency!.median / 1e5) / 10).toBe(25.2);

    const services = await factsOf(sharedRecording("rosbag2-upstream/sqlite3-bag_with_topics_and_service_events"));
    const text = describeFacts("bag", services).join("\n");
    expect(text).toMatch(/\/test_service1\/_service_event\n {2}type test_msgs\/srv\/BasicTypes_Event, encoding cdr, 4 messages.*\n {2}not decodable: no message definition/);
    expect(services.topics.find((t) => t.topic === "/test_topic1")!.stampSource).toBe("none");
    // One message is "1 message", not "1 messages".
    expect(text).toMatch(/\/test_topic1\n {2}type test_msgs\/msg\/Strings, encoding cdr, 1 message\n/);
  });

  it("a topic recorded without messages is listed with 0 messages (rosbag2's talker: /parameter_events)", async () => {
    const { code, out } = await runInfo(sharedRecording("rosbag2-upstream/mcap-talker"));
    expect(code).toBe(0);
    expect(out).toMatch(/^\/parameter_events\n {2}type rcl_interfaces\/msg\/ParameterEvent, encoding cdr, 0 messages \(the recording lists the topic but holds no message of it\)\n/m);
    const facts = await factsOf(sharedRecording("rosbag2-upstream/mcap-talker"));
    expect(facts.topics.map((t) => [t.topic, t.messages])).toEqual([
      ["/rosout", 10],
      ["/topic", 10],
      ["/parameter_events", 0],
    ]);
  });

  it("a damaged recording: the facts of everything readable around the damage, which is named, and exit 1", async () => {
    const bytes = await readFile(sharedRecording("husky-2015.bag"));
    const path = join(tmp.path, "cut.bag");
    await writeFile(path, bytes.subarray(0, 800_000));
    const { code, out: text, err } = await runInfo(path);
    expect(code).toBe(1);
    expect(text).toMatch(/^damaged regions read past: 1 /m);
    expect(text).toMatch(/^\/imu\/data\n {2}type sensor_msgs\/Imu, encoding ros1, [\d,]+ messages/m);
    expect(err).toMatch(/at byte offset \d+: the file is truncated/);
  });

  it("a topic name of control characters is printed with them made visible, in the report and in an error", async () => {
    const evil = "/x\u0000\u001b[2J\u202e";
    const bag = writeBag([{ topic: evil, type: "test_msgs/Value", definition: "uint32 value" }], [{ conn: 0, sec: 100, nsec: 0, data: Uint8Array.of(1, 0, 0, 0) }]);
    const path = join(tmp.path, "evil.bag");
    await writeFile(path, bag.bytes);
    const { code, out } = await runInfo(path);
    expect(code).toBe(0);
    expect(out).toMatch(/^\/x\\x00\\x1b\[2J\\u\{202e\}\n {2}type test_msgs\/Value/m);
    // eslint-disable-next-line no-control-regex
    expect(/[\u0000-\u0009\u000b-\u001f\u202e]/.test(out)).toBe(false);
    const analyzed = await runMain(["analyze", path, "--config", JSON.stringify({ inputs: [{ topic: "/y\u001b[31m" }], policy: { type: "fkie/fifo" } })]);
    expect(analyzed.code).toBe(2);
    expect(analyzed.err).toContain('/inputs/0/topic: "/y\\x1b[31m" is not in');
    expect(analyzed.err).toContain("\\x00\\x1b[2J");
    // eslint-disable-next-line no-control-regex
    expect(/[\u0000-\u0009\u000b-\u001f\u202e]/.test(analyzed.err)).toBe(false);
  });
});
