import { readFileSync } from "node:fs";
import { it } from "vitest";
import { openRecordingFile } from "../../recording/node";
import { parseConfig, Pipeline } from "../../pipeline";
import { AnalysisEngine } from "./AnalysisEngine";
it("prof", async () => {
  const HUSKY = JSON.parse(readFileSync("/work/main/config/husky.json", "utf8"));
  const rec = await openRecordingFile("/work/main/samples/husky-2015.bag");
  const events: any[] = []; let seq = 0;
  for await (const m of rec.messages()) events.push({ seq: seq++, topic: m.topic, schemaName: m.schemaName, receiveTime: m.receiveTime, message: m.message });
  const p = new Pipeline(parseConfig(HUSKY));
  for (let i = 0; i < events.length; i += 3000) { const t = performance.now(); for (const e of events.slice(i, i+3000)) p.push(e); console.log("pipeline chunk", i, performance.now() - t); }
  const e = new AnalysisEngine(HUSKY);
  for (let i = 0; i < events.length; i += 3000) { const t = performance.now(); e.ingest(events.slice(i, i+3000)); console.log("engine chunk", i, performance.now() - t); }
});
