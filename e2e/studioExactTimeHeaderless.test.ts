// The Diagnosis tab in Foxglove Studio 1.76.0 web on an exact-time policy beside an input that has
// no header, as a user meets it: the fuse tutorial's recording, /odom with /cmd_vel (a
// geometry_msgs/Twist) through ros/exact-time gives no set. "Diagnose" names the missing stamps
// and the two changes that give sets; the cause's one "Apply" makes both (the policy's type and
// /cmd_vel's Stamp source, in the sidebar), and the re-run gives the sets the diagnosis promised.
// The expected headline comes from `lockstep doctor --json` on the same file and config, with one
// difference: Studio delivers /odom's messages that share a receive time (sim time, on whole
// milliseconds) partly out of file order, and ROS's approximate time forms other sets from them
// than from the file's order, which the stats tab says.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

import { addInputTopics, analyzeWholeRecording, APPS, chooseOption, cliDoctor, diagnoseInPanel, fieldValue, openPanelSettings, openRecordingWithPanel, panelNumber, realAppSkipReason, SHARED, useRealApp } from "./realApp";
import { ARTIFACTS } from "./setup";
import type { Diagnosis } from "../src/pipeline/diagnosis";

const RECORDING = "fuse-tutorial-turtlebot3.bag";
const CONFIG = { inputs: [{ topic: "/odom" }, { topic: "/cmd_vel" }], policy: { type: "ros/exact-time", queueSize: 10 } };

const skip = realAppSkipReason(APPS.studio);

describe.skipIf(skip != undefined)(`The Diagnosis tab on an exact-time policy beside a headerless input, Foxglove Studio 1.76.0 (real app, ${skip ?? "../shared/hosts"})`, () => {
  const app = useRealApp(APPS.studio);
  let expected: Promise<Diagnosis>;

  beforeAll(() => {
    expected = cliDoctor(join(SHARED, "data", RECORDING), CONFIG);
    expected.catch(() => undefined); // awaited in the test
  });

  it("fuse tutorial: no set; Diagnose names both changes; one Apply switches the policy and stamps /cmd_vel by receive time, giving the promised sets", { timeout: 900_000 }, async () => {
    const { context, page, errors } = await app.newPage();
    await openRecordingWithPanel(page, app.server(), RECORDING, app.foxe());

    await openPanelSettings(page);
    await addInputTopics(page, [/^\/odom\b/, /^\/cmd_vel .*no header stamp/]);
    await chooseOption(page, "Type", "ros/exact-time");

    const d = await expected;
    expect(d.tuples).toBe(0);
    const cause = d.causes[0]!;
    expect([cause.id, cause.topic]).toEqual(["missing-stamps", "/cmd_vel"]);
    const fix = cause.stampFix!;
    expect(fix.stamps).toEqual({ "/cmd_vel": "receive" });
    expect(fix.policy).toMatchObject({ type: "ros/approximate-time", queueSize: 10 });
    expect(fix.tuples).toBe(cause.setsLost);
    expect(fix.tuples).toBeGreaterThan(0);

    await analyzeWholeRecording(page);
    await expect.poll(async () => await panelNumber(page, "tuple-count")).toBe(0);
    const headline = await diagnoseInPanel(page);
    const offered = page.locator('[data-testid="diagnosis-stamp-fix-0"]');
    const promised = Number(await offered.getAttribute("data-tuples"));
    expect(promised).toBeGreaterThan(0.9 * fix.tuples);
    expect(await headline.textContent()).toBe(d.headline.replaceAll(`${fix.tuples} `, `${promised} `));
    expect(await offered.textContent()).toContain(`ros/approximate-time, with /cmd_vel stamped by receive time: ${promised} sets`);
    await page.screenshot({ path: join(ARTIFACTS, "studio-diagnosis-exact-time-headerless.png") });
    await page.locator('[data-testid="diagnosis-stamp-apply-0"]').click();
    await page.locator('[data-testid="analysis-stale"]').waitFor({ timeout: 60_000 });
    await expect.poll(async () => await fieldValue(page, "Type")).toBe("ros/approximate-time");
    await expect.poll(async () => await fieldValue(page, "Stamp source", 1)).toBe("Receive time");
    expect(await fieldValue(page, "Stamp source", 0)).not.toBe("Receive time");
    const applied = page.locator('[data-testid="diagnosis-applied"]');
    expect(await applied.getAttribute("data-predicted")).toBe(String(promised));

    await analyzeWholeRecording(page);
    await expect.poll(async () => await panelNumber(page, "tuple-count")).toBe(promised);
    await expect.poll(async () => await applied.getAttribute("data-whole")).toBe("done");
    expect(await applied.getAttribute("data-sets")).toBe(String(promised));
    await page.screenshot({ path: join(ARTIFACTS, "studio-diagnosis-exact-time-headerless-fixed.png") });
    // Where the panel's count and the CLI's part, the stats tab names the host's tie order.
    await page.locator('[data-testid="tab-stats"]').click();
    const hints = (await page.locator('[data-testid="hints"]').textContent()) ?? "";
    await page.screenshot({ path: join(ARTIFACTS, "studio-stats-tie-order.png") });
    if (promised !== fix.tuples) {
      expect(hints).toMatch(/another order than the file: on \/odom \(\d+ of \d+ pairs sharing a receive time\).* its sets can differ from those of `lockstep analyze`/);
    }
    expect(await page.locator('[data-testid="config-error"]').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
