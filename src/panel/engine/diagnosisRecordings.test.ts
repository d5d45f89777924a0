// The panel's Diagnosis view against `lockstep doctor` on the four real ROS 1 recordings, each with
// an ill-suited config. The panel side runs as the app runs it: the host's range subscription (one
// iterator per topic, decoded messages with their receive times), the panel's receive-time merge
// and slimming (analyzeRange), the engine protocol (EngineClient → EngineServer → AnalysisEngine),
// then the view's "Diagnose" request; "Apply" replaces the policy in the panel config, which gives
// a new analysis key and a re-run of the whole recording.

import type { Immutable, MessageEvent } from "@foxglove/extension";
import { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { EngineClient } from "./EngineClient";
import { localEnginePort } from "./EngineServer";
import type { EngineDelta } from "./engineTypes";
import { analyzeRange, mergeByReceiveTime } from "./rangeAnalysis";
import { hostRangeSubscribe } from "./testing";
import { runDoctor } from "../../cli/commands/doctor";
import { replay } from "../../cli/commands/replay";
import { parseConfig } from "../../pipeline";
import { runTrace, type Diagnosis, type StampTrace } from "../../pipeline/diagnosis";
import { openRecordingFile } from "../../recording/node";
import { HAS_SHARED_DATA, sharedRecording } from "../../recording/testing/paths";
import { analysisKey, engineConfig } from "../settings/analysisKey";
import { defaultConfig, type LockstepConfig } from "../settings/panelConfig";

/** The four recordings and the ill-suited config of each (the table in the diagnosis notes). */
const CASES: readonly { bag: string; inputs: string[]; policy: LockstepConfig["policy"] }[] = [
  {
    bag: "husky-2015.bag",
    inputs: ["/imu/data", "/husky_velocity_controller/odom", "/fix"],
    policy: { type: "fkie/approximate-time", maxQueueSize: 20, maxTimespan: "5ms" },
  },
  {
    bag: "mustang-2014.bag",
    inputs: ["/xsens/imu_data", "/wheel_odometry", "/stereo_odometer/odometry"],
    policy: { type: "ros/approximate-time", queueSize: 10 },
  },
  {
    bag: "cartographer-b0-2014-short.bag",
    inputs: ["imu", "horizontal_laser_2d", "vertical_laser_2d"],
    policy: { type: "python/approximate-time", queueSize: 5, slop: "1ms" },
  },
  {
    bag: "fuse-tutorial-turtlebot3.bag",
    inputs: ["/odom", "/imu", "/scan"],
    policy: { type: "ros/exact-time", queueSize: 10 },
  },
];

/** The panel's engine (in-page port: the same EngineServer the worker runs). */
class PanelEngine {
  readonly #client: EngineClient;
  #delta: EngineDelta | undefined;
  #diagnosis: ((d: Diagnosis | undefined) => void) | undefined;
  #errors: string[] = [];

  public constructor() {
    this.#client = new EngineClient(
      {
        onDelta: (d) => (this.#delta = d),
        onError: (m) => this.#errors.push(m),
        onDiagnosis: (d) => this.#diagnosis?.(d),
      },
      { inPage: localEnginePort },
    );
  }

  /** What the panel does on a new analysis key, then "Analyze whole recording": the final statistics' sets. */
  public async analyzeWhole(config: LockstepConfig, subscribe: ReturnType<typeof hostRangeSubscribe>): Promise<number> {
    this.#client.configure(engineConfig(analysisKey(config)));
    this.#client.reset();
    await analyzeRange(subscribe, config.inputs.map((i) => i.topic), async (events) => {
      await this.#client.ingest(events);
    }, {
      signal: new AbortController().signal,
      onProgress: () => undefined,
    });
    await this.#client.flush();
    expect(this.#errors).toEqual([]);
    return this.#delta!.stats.tuples;
  }

  /** The Diagnosis view's "Diagnose" button. */
  public async diagnose(): Promise<Diagnosis | undefined> {
    const answer = new Promise<Diagnosis | undefined>((resolve) => (this.#diagnosis = resolve));
    this.#client.diagnose();
    return await answer;
  }

  public dispose(): void {
    this.#client.dispose();
  }
}

/** Topics in the order the panel's receive-time merge hands them to the engine. */
async function panelOrder(byTopic: ReadonlyMap<string, Immutable<MessageEvent>[]>): Promise<string[]> {
  const its = [...byTopic.values()].map(async function* (messages) {
    yield messages;
  });
  const out: string[] = [];
  for await (const batch of mergeByReceiveTime(its)) {
    out.push(...batch.map((m) => m.topic));
  }
  return out;
}

/**
 * The most sets the suggested policy gives when the parameters it sets are swept alone on a fine
 * grid of their own (an oracle independent of the search's candidates): counts 1..300, stopping
 * once no queue overflowed (a limit that never acted behaves as any larger one); durations every
 * 1 ms to 60 ms, then every 10 ms to 400 ms.
 */
function sweptBest(slots: number, policy: Record<string, unknown>, parameters: readonly string[], trace: StampTrace): number {
  let best = 0;
  const durations = [...Array.from({ length: 60 }, (_, i) => i + 1), ...Array.from({ length: 34 }, (_, i) => 70 + 10 * i)].map((ms) => `${ms}ms`);
  for (const name of parameters) {
    const value = policy[name];
    if (typeof value === "number") {
      for (let q = 1; q <= 300; q++) {
        const run = runTrace(parseConfig({ slots, policy: { ...policy, [name]: q } }).policy, trace);
        best = Math.max(best, run.tuples);
        if ((run.drops["queue-overflow"] ?? 0) === 0) {
          break;
        }
      }
    } else if (typeof value === "string") {
      for (const d of durations) {
        best = Math.max(best, runTrace(parseConfig({ slots, policy: { ...policy, [name]: d } }).policy, trace).tuples);
      }
    }
  }
  return best;
}

/** `lockstep replay`'s code on the recording's stamp trace: the number of tuple lines it prints. */
async function replayTuples(slots: number, policy: unknown, lines: Iterable<string>): Promise<number> {
  let text = "";
  const out = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString();
      done();
    },
  });
  await replay(parseConfig({ slots, policy }), Readable.from([`${[...lines].join("\n")}\n`]), out);
  return text.split("\n").filter((l) => l.startsWith('{"tuple"')).length;
}

describe.skipIf(!HAS_SHARED_DATA)("the panel's Diagnosis on the four real ROS 1 recordings equals doctor's (needs ../shared/data)", () => {
  const engine = new PanelEngine();
  afterAll(() => {
    engine.dispose();
  });

  for (const c of CASES) {
    describe(`${c.bag}, ${c.policy.type}`, () => {
      const config: LockstepConfig = { ...defaultConfig(), inputs: c.inputs.map((topic) => ({ topic })), policy: c.policy };
      let subscribe: ReturnType<typeof hostRangeSubscribe>;
      let doctor: Awaited<ReturnType<typeof runDoctor>>;
      let panelTuples: number;
      let panel: Diagnosis;
      /** Messages the panel's merge hands over in another order than the file's (receive-time ties across topics). */
      let reordered: number;

      beforeAll(async () => {
        const file = sharedRecording(c.bag);
        const byTopic = new Map<string, Immutable<MessageEvent>[]>(c.inputs.map((t) => [t, []]));
        const fileOrder: string[] = [];
        const recording = await openRecordingFile(file);
        try {
          for await (const m of recording.messages({ topics: c.inputs })) {
            fileOrder.push(m.topic);
            byTopic.get(m.topic)!.push({ topic: m.topic, schemaName: m.schemaName, receiveTime: m.receiveTime, message: m.message } as Immutable<MessageEvent>);
          }
        } finally {
          await recording.close();
        }
        subscribe = hostRangeSubscribe(byTopic);
        const merged = await panelOrder(byTopic);
        reordered = merged.filter((t, i) => t !== fileOrder[i]).length;
        doctor = await runDoctor(file, parseConfig(engineConfig(analysisKey(config))));
        panelTuples = await engine.analyzeWhole(config, subscribe);
        panel = (await engine.diagnose())!;
      }, 300_000);

      it("diagnoses as doctor does: the same headline, causes and first suggestion with its outcome", () => {
        const d = doctor.diagnosis!;
        expect(panel.events).toBe(d.events);
        expect(panelTuples).toBe(d.tuples);
        expect(panel.headline).toBe(d.headline);
        expect(panel.causes).toEqual(d.causes);
        expect(panel.suggestions[0]).toEqual(d.suggestions[0]);
        expect(panel.suggestions.map((s) => [s.policy, s.tuples])).toEqual(d.suggestions.map((s) => [s.policy, s.tuples]));
        if (reordered === 0) {
          // The same messages in the same order: the whole diagnosis is the same.
          expect(panel).toEqual(d);
        } else {
          // The host hands the panel one stream per topic, so messages of different topics that
          // share a receive time reach the engine in slot order, not the file's order (doctor's).
          // That may move drops between reasons in a suggestion's run; its sets stay the same.
          expect(panel.facts).toEqual(d.facts);
        }
      });

      it("its first suggestion gives more sets, within 2 % of the most its changed parameters give swept alone", () => {
        const first = panel.suggestions[0]!;
        expect(first.tuples).toBeGreaterThan(panel.tuples);
        expect(first.tuples).toBeGreaterThanOrEqual(0.98 * panel.bestTuples);
        let swept: string[];
        if (first.kind === "first") {
          swept = first.changes.map((x) => x.parameter);
        } else {
          // No setting of the configured policy does well: the headline says to switch policy.
          expect(first.kind).toBe("alternative");
          expect(first.tuples).toBeGreaterThan(2 * panel.bestTuples);
          expect(panel.headline).toContain(`switch to ${String(first.policy.type)}`);
          swept = Object.keys(first.policy).filter((k) => k !== "type");
        }
        expect(swept.length).toBeGreaterThan(0);
        const best = sweptBest(c.inputs.length, first.policy, swept, doctor.extension.trace!);
        expect(first.tuples).toBeGreaterThanOrEqual(0.98 * best);
        expect(panel.headline).toContain(first.tuples.toLocaleString("en-US"));
      });

      it("Apply + re-run in the panel, and `lockstep replay` on the stamps, give exactly the predicted sets", async () => {
        const first = panel.suggestions[0]!;
        const applied: LockstepConfig = { ...config, policy: first.policy as LockstepConfig["policy"] };
        expect(analysisKey(applied)).not.toBe(analysisKey(config));
        expect(await engine.analyzeWhole(applied, subscribe)).toBe(first.tuples);
        const trace = doctor.extension.trace!;
        expect(await replayTuples(c.inputs.length, first.policy, trace.replayLines())).toBe(first.tuples);
      }, 300_000);
    });
  }
});
