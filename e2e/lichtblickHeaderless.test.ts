// The Diagnosis tab in Lichtblick 1.10.0 web on inputs that never carry a header stamp, as a user
// meets it: rosbag2's own talker MCAP (/rosout and /topic, std_msgs types) through
// ros/approximate-time gives no set; "Diagnose" answers with the missing stamps and the stamp
// source that fixes them; its "Apply" sets both inputs' Stamp source to "Receive time", and the
// re-run gives the sets the diagnosis promised. The expected headline and count come from `lockstep doctor --json`
// on the same file and config.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

import { addInputTopics, addLockstepPanel, analyzeWholeRecording, APPS, chooseOption, cliDoctor, diagnoseInPanel, fieldValue, installExtension, openPanelSettings, openRecording, panelNumber, realAppSkipReason, SHARED, useRealApp } from "./realApp";
import { ARTIFACTS } from "./setup";
import type { Diagnosis } from "../src/pipeline/diagnosis";

const RECORDING = "rosbag2-upstream/mcap-talker/talker.mcap";
const CONFIG = { inputs: [{ topic: "/rosout" }, { topic: "/topic" }], policy: { type: "ros/approximate-time", queueSize: 10 } };

const skip = realAppSkipReason(APPS.lichtblick);

describe.skipIf(skip != undefined)(`The Diagnosis tab on inputs without header stamps, Lichtblick 1.10.0 (real app, ${skip ?? "../shared/hosts"})`, () => {
  const app = useRealApp(APPS.lichtblick);
  let expected: Promise<Diagnosis>;

  beforeAll(async () => {
    expected = cliDoctor(join(SHARED, "data", RECORDING), CONFIG);
    expected.catch(() => undefined); // awaited in the test
  }, 600_000);

  it("talker MCAP: no set; Diagnose names the missing stamps and the fix; Apply (Receive time on both inputs) gives the promised sets", { timeout: 900_000 }, async () => {
    const { context, page, errors } = await app.newPage();
    await openRecording(page, app.server(), app.server().dataUrl(RECORDING));
    await installExtension(page, app.foxe());
    await addLockstepPanel(page);
    await page.getByText("This data source has no topic with header stamps").waitFor({ timeout: 120_000 });

    // Two inputs, their topics (offered with "no header stamp"), and the policy, in the settings sidebar.
    await openPanelSettings(page);
    await addInputTopics(page, [/^\/rosout .*no header stamp/, /^\/topic .*no header stamp/]);
    await chooseOption(page, "Type", "ros/approximate-time");

    const d = await expected;
    expect(d.tuples).toBe(0);
    expect(d.causes[0]!.id).toBe("missing-stamps");
    const promised = d.causes[0]!.setsLost;
    expect(promised).toBeGreaterThan(0);

    await analyzeWholeRecording(page);
    await expect.poll(async () => await panelNumber(page, "tuple-count")).toBe(0);
    const headline = await diagnoseInPanel(page);
    expect(await headline.textContent()).toBe(d.headline);
    expect(d.headline).toContain('"stamp": "receive" on /rosout and /topic');
    await page.screenshot({ path: join(ARTIFACTS, "lichtblick-diagnosis-headerless.png") });

    // What the diagnosis says to do, applied from the cause: both inputs stamped by receive time
    // (the sidebar shows it), then the offered re-run.
    expect(await page.locator('[data-testid="diagnosis-stamp-fix-0"]').getAttribute("data-tuples")).toBe(String(promised));
    await page.locator('[data-testid="diagnosis-stamp-apply-0"]').click();
    await page.locator('[data-testid="analysis-stale"]').waitFor({ timeout: 60_000 });
    const applied = page.locator('[data-testid="diagnosis-applied"]');
    expect(await applied.getAttribute("data-predicted")).toBe(String(promised));
    expect(await applied.textContent()).toContain("Applied /rosout and /topic stamped by receive time:");
    await expect.poll(async () => await fieldValue(page, "Stamp source", 0)).toBe("Receive time");
    await expect.poll(async () => await fieldValue(page, "Stamp source", 1)).toBe("Receive time");
    await analyzeWholeRecording(page);
    await expect.poll(async () => await panelNumber(page, "tuple-count")).toBe(promised);
    await expect.poll(async () => await applied.getAttribute("data-whole")).toBe("done");
    expect(await applied.getAttribute("data-sets")).toBe(String(promised));
    await page.screenshot({ path: join(ARTIFACTS, "lichtblick-diagnosis-headerless-fixed.png") });
    expect(await page.locator('[data-testid="config-error"]').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
