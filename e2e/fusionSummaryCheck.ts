// The transactions tab's summary of the fusion run, after "Analyze whole recording", against
// `lockstep analyze`'s summary.json on the same recording and config.
import { join } from "node:path";
import { expect } from "vitest";

import type { RealAppCheck } from "./realAppChecks";
import { ARTIFACTS } from "./setup";

interface FusionPart {
  transactionsBySensor: Record<string, number>;
  drops: Record<string, number>;
  finalPose: { x: number; y: number; yaw: number };
}

/** The fusion summary says analyze's transaction count per sensor and its fusion drops per reason. */
export const fusionSummaryCheck: RealAppCheck = {
  title: "the transactions tab sums the fusion run up as analyze does",
  async run({ app, page, summary }) {
    const fusion = summary.fusion as FusionPart | undefined;
    expect(fusion, "the suite's config has a fusion section").toBeDefined();
    const count = summary.transactions as number;
    const perSensor = Object.entries(fusion!.transactionsBySensor).map(([sensor, n]) => `${sensor} ${n}`);
    const drops = Object.entries(fusion!.drops).map(([reason, n]) => `${reason} ${n}`);
    await page.locator('[data-testid="tab-transactions"]').click();
    const box = page.locator('[data-testid="fusion-summary"]');
    await box.waitFor({ timeout: 60_000 });
    expect(await box.locator('[data-kind="transactions"]').textContent()).toBe(`${count} transactions (${perSensor.join(", ")})`);
    expect(await box.locator('[data-kind="drops"]').textContent()).toBe(drops.length === 0 ? "no fusion drops" : `fusion drops: ${drops.join(", ")}`);
    expect(await box.locator('[data-kind="drop"]').count()).toBe(Math.min(5, Object.values(fusion!.drops).reduce((a, b) => a + b, 0)));
    await page.screenshot({ path: join(ARTIFACTS, `${app}-fusion-summary.png`) });
    const pose = fusion!.finalPose;
    expect(await box.locator('[data-kind="pose"]').textContent()).toMatch(
      new RegExp(`^final pose at .+: x ${pose.x.toFixed(3)} m, y ${pose.y.toFixed(3)} m, yaw ${pose.yaw.toFixed(4)} rad$`),
    );
  },
};
