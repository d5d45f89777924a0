// The trajectory tab in Foxglove Studio 1.76.0 web on two odometry sources without fusion, as a
// user meets them: the mustang recording's wheel odometry (its own origin) and stereo visual
// odometry (UTM, thousands of km from it). Analyzed over the whole recording, the tab draws one
// track per input, offers to align the visual track to the wheel track's start and says how far
// apart they start; checked, the two start together.
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { addInputTopics, analyzeWholeRecording, APPS, openPanelSettings, openRecordingWithPanel, panelNumber, realAppSkipReason, useRealApp } from "./realApp";
import { ARTIFACTS } from "./setup";

const RECORDING = "mustang-2014.bag";

const skip = realAppSkipReason(APPS.studio);

describe.skipIf(skip != undefined)(`Two odometry inputs in the trajectory tab, Foxglove Studio 1.76.0 (real app, ${skip ?? "../shared/hosts"})`, () => {
  const app = useRealApp(APPS.studio);

  it("mustang .bag: a track per odometry input; aligned to the wheel odometry's start, the visual odometry starts on it", { timeout: 900_000 }, async () => {
    const { context, page, errors } = await app.newPage();
    await openRecordingWithPanel(page, app.server(), RECORDING, app.foxe());
    await openPanelSettings(page);
    await addInputTopics(page, [/^\/wheel_odometry\b/, /^\/stereo_odometer\/odometry\b/]);
    await analyzeWholeRecording(page);
    expect(await panelNumber(page, "tuple-count")).toBeGreaterThan(0);

    await page.locator('[data-testid="tab-trajectory"]').click();
    const trajectory = page.locator('[data-testid="trajectory"]');
    await expect.poll(async () => await trajectory.getAttribute("data-raw-tracks")).toBe("2");
    const align = page.locator('[data-testid="trajectory-align"]');
    const label = page.locator("label", { has: align });
    expect(await label.textContent()).toContain("align the other odometry to /wheel_odometry's start");
    // UTM against the wheels' own origin: about 5,449 km.
    expect(Number(await trajectory.getAttribute("data-start-gap"))).toBeGreaterThan(5e6);
    await page.screenshot({ path: join(ARTIFACTS, "studio-two-odometry.png") });

    await align.check();
    await expect.poll(async () => await trajectory.getAttribute("data-aligned")).toBe("true");
    expect(Number(await trajectory.getAttribute("data-start-gap"))).toBeLessThan(0.01);
    await page.screenshot({ path: join(ARTIFACTS, "studio-two-odometry-aligned.png") });
    expect(errors).toEqual([]);
    await context.close();
  });
});
