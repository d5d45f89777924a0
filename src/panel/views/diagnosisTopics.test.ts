import { describe, expect, it } from "vitest";

import { forPanel, topicDiagnosis } from "./diagnosisTopics";
import { diagnose } from "../../pipeline/diagnosis/diagnose";
import { receivedAt, recordThroughPipeline, T0 } from "../../pipeline/diagnosis/testTraces";
import { parseConfig } from "../../pipeline/parseConfig";

const HUSKY = ["/fix", "/husky_velocity_controller/odom", "/imu/data"];
const counts = (topic: string, messages: number): { topic: string; messages: number; matched: number; dropped: number; rate: number } => ({ topic, messages, matched: 0, dropped: 0, rate: NaN });

describe("the diagnosis of inputs without messages, in the panel", () => {
  it("names each input topic the data source lacks and what was meant (the fuse tutorial on husky)", () => {
    const inputs = [{ topic: "/odom" }, { topic: "/imu" }];
    const lines = topicDiagnosis(inputs, [counts("/odom", 0), counts("/imu", 0)], HUSKY);
    expect(lines[0]).toBe("/odom is not in this data source; did you mean /husky_velocity_controller/odom?");
    expect(lines).toHaveLength(2);
  });

  it("answers even before the data source's topics are known", () => {
    const lines = topicDiagnosis([{ topic: "/odom" }, { topic: "/imu" }], [counts("/odom", 0), counts("/imu", 0)], undefined);
    expect(lines.join(" ")).toMatch(/\/odom and \/imu have no message/);
  });

  it("says nothing when every input has messages", () => {
    expect(topicDiagnosis([{ topic: "/fix" }, { topic: "/imu/data" }], [counts("/fix", 3), counts("/imu/data", 5)], HUSKY)).toEqual([]);
  });

  it("a silent input's cause lists the data source's topics instead of sending the user to `lockstep info`", () => {
    const policy = { type: "ros/approximate-time", queueSize: 10 };
    const messages = Array.from({ length: 30 }, (_, k) => receivedAt("/a", k * 50_000_000, { header: { stamp: { sec: T0, nsec: k * 30_000_000 } } }));
    const inputs = [{ topic: "/a" }, { topic: "/b" }];
    const { recorder } = recordThroughPipeline({ inputs, policy }, messages);
    const d = diagnose(recorder.trace!, parseConfig({ inputs, policy }).policy);
    expect(d.causes[0]!.id).toBe("silent-input");
    const text = forPanel(d.causes[0]!.message, ["/a", "/c"]);
    expect(text).not.toContain("lockstep info");
    expect(text).toContain("its topics are /a, /c");
    // Unknown topics: the hint still goes, with a panel-sized replacement.
    expect(forPanel(d.headline, undefined)).not.toContain("lockstep info");
  });
});
