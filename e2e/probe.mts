import { serveApp, APPS, installExtension, addLockstepPanel, openPanelSettings, expandNode, chooseOption, fieldInput, startServe, openLive, showInRawMessages, openTopicList } from "./realApp";
import { launchChromium, FOXE, BAG } from "./setup";
const app = process.argv[2] === "l" ? APPS.lichtblick : APPS.studio;
const [server, browser, serve] = await Promise.all([serveApp(app), launchChromium(), startServe(BAG)]);
try {
const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
const page = await ctx.newPage();
page.on("pageerror", (e) => console.log("pageerror", e.message));
await openLive(page, server, serve.url);
await installExtension(page, FOXE);
await addLockstepPanel(page);
await openPanelSettings(page);
await expandNode(page, "Presets", "Load preset");
await chooseOption(page, "Load preset", /husky/);
await expandNode(page, "Publish", "Namespace");
await fieldInput(page, "Publish").getByRole("button", { name: "On" }).click();
await page.locator('[data-testid="publishing"]').waitFor({ timeout: 60_000 });
await page.waitForTimeout(5000);
await showInRawMessages(page, "/lockstep/fused_poses");
await page.waitForTimeout(5000);
await page.screenshot({ path: `/tmp/apps/p-raw.png` });
await openTopicList(page);
await page.waitForTimeout(3000);
await page.screenshot({ path: `/tmp/apps/p-topics.png` });
for (const el of await page.locator('[data-topic-stat="count"]').all()) {
  console.log(await el.getAttribute("data-topic"), JSON.stringify(await el.textContent()), await el.isVisible());
}
console.log(serve.log().slice(-1500));
} finally { await browser.close(); server.stop(); await serve.stop(); }
