// A whole-recording analysis in Lichtblick 1.10.0 web after an input was added, as the user pass
// met it: /fix + odometry analyzed, then /imu/data added and analyzed again. The host keeps the
// blocks it preloaded for the first two inputs up to the end of the recording, so the second
// analysis used to end at once without a single /imu/data message ("whole recording analyzed",
// 4,941 messages). Every input must now be analyzed: the numbers equal `lockstep analyze`'s, and
// the compare column, picked afterwards, runs over the same messages (the configured policy
// against itself gives the same sets; ros/latest-time gives the CLI's figure).
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { addInputTopics, analyzeWholeRecording, APPS, chooseOption, openPanelSettings, openRecordingWithPanel, panelNumber, realAppSkipReason, SHARED, useRealApp } from "./realApp";
import { ARTIFACTS, cliAnalyze, type AnalyzeSummary } from "./setup";

const RECORDING = "ros2/husky-2015.mcap";
const TWO = ["/fix", "/husky_velocity_controller/odom"] as const;
const THREE = [...TWO, "/imu/data"] as const;
const config = (topics: readonly string[], policy: Record<string, unknown> = { type: "fkie/approximate-time" }): unknown => ({ inputs: topics.map((topic) => ({ topic })), policy });
const messagesOf = (s: AnalyzeSummary): number => Object.values(s.topics).reduce((a, t) => a + t.messages, 0);

const skip = realAppSkipReason(APPS.lichtblick);

describe.skipIf(skip != undefined)(`An input added after a whole-recording analysis, Lichtblick 1.10.0 (real app, ${skip ?? "../shared/hosts"})`, () => {
  const app = useRealApp(APPS.lichtblick);

  it("husky MCAP: the re-run covers the added /imu/data (CLI's sets and messages); the compare column covers the whole recording", { timeout: 900_000 }, async () => {
    const file = join(SHARED, "data", RECORDING);
    const two = cliAnalyze(file, config(TWO));
    const three = cliAnalyze(file, config(THREE));
    const latest = cliAnalyze(file, config(THREE, { type: "ros/latest-time" }));
    expect(messagesOf(three)).toBeGreaterThan(messagesOf(two));

    const { context, page, errors } = await app.newPage();
    await openRecordingWithPanel(page, app.server(), RECORDING, app.foxe());

    await openPanelSettings(page);
    await addInputTopics(page, TWO.map((t) => new RegExp(`^${t}\\b`)));
    await chooseOption(page, "Type", "fkie/approximate-time");
    await analyzeWholeRecording(page);
    await expect.poll(async () => await panelNumber(page, "ingested"), { timeout: 60_000 }).toBe(messagesOf(two));
    expect(await panelNumber(page, "tuple-count")).toBe(two.tuples);

    await addInputTopics(page, [new RegExp(`^${THREE[2]}\\b`)], 2);
    await page.locator('[data-testid="analysis-stale"]').waitFor({ timeout: 60_000 });
    await analyzeWholeRecording(page);
    await page.screenshot({ path: join(ARTIFACTS, "lichtblick-added-input.png") });
    expect(await panelNumber(page, "ingested")).toBe(messagesOf(three));
    expect(await panelNumber(page, "tuple-count")).toBe(three.tuples);

    await page.locator('[data-testid="tab-compare"]').click();
    const select = page.locator('[data-testid="lockstep-root"] select').first();
    // The column names its policy, so a number left from the previous pick is not mistaken for it.
    const column = async (): Promise<string> => `${(await page.locator('[data-testid="compare-other-0"]').textContent()) ?? ""} ${await panelNumber(page, "compare-other-1")}`;
    await select.selectOption("fkie/approximate-time");
    await expect.poll(column, { timeout: 60_000 }).toBe(`fkie/approximate-time ${three.tuples}`);
    await select.selectOption("ros/latest-time");
    await expect.poll(column, { timeout: 60_000 }).toBe(`ros/latest-time ${latest.tuples}`);
    expect(errors).toEqual([]);
    await context.close();
  });
});
