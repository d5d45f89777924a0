// Click-to-explain in the panel: a drop row asked about through the engine protocol gets the same
// explanation `lockstep doctor --explain n` prints for that drop.

import { beforeAll, describe, expect, it } from "vitest";

import { EngineClient } from "./EngineClient";
import { localEnginePort } from "./EngineServer";
import type { DropRow } from "./engineTypes";
import { recordingEvents } from "./testing";
import { runDoctor } from "../../cli/commands/doctor";
import { parseConfig } from "../../pipeline";
import { DropExplainer, type DropExplanation } from "../../pipeline/diagnosis";
import { HUSKY_BAG } from "../../recording/testing/paths";

/** Husky's three inputs with a timespan limit below the GPS–IMU stamp distance: many drops of several reasons. */
const CONFIG = {
  inputs: [{ topic: "/imu/data" }, { topic: "/husky_velocity_controller/odom" }, { topic: "/fix" }],
  policy: { type: "fkie/approximate-time", maxQueueSize: 20, maxTimespan: "5ms" },
};

describe("click-to-explain: the panel's drop explanations equal doctor --explain's", () => {
  const rows: DropRow[] = [];
  let client: EngineClient;
  const answers: { slot: number; stamp: number; explanation: DropExplanation | undefined }[] = [];
  let doctorExplainer: DropExplainer;

  beforeAll(async () => {
    const events = await recordingEvents(HUSKY_BAG);
    client = new EngineClient(
      {
        onDelta: (d) => rows.push(...d.drops),
        onError: (m) => {
          throw new Error(m);
        },
        onExplanation: (slot, stamp, explanation) => answers.push({ slot, stamp, explanation }),
      },
      { inPage: localEnginePort },
    );
    client.configure(CONFIG);
    for (let i = 0; i < events.length; i += 2000) {
      await client.ingest(events.slice(i, i + 2000));
    }
    await client.flush();
    const doctor = await runDoctor(HUSKY_BAG, parseConfig(CONFIG));
    doctorExplainer = new DropExplainer(doctor.extension.trace!, parseConfig(CONFIG).policy);
  }, 120_000);

  it("the first drop of every reason and every 97th drop: same explanation as the n-th drop of doctor --explain", async () => {
    expect(rows.length).toBe(doctorExplainer.drops.length);
    const reasons = new Set(rows.map((r) => r.reason));
    expect(reasons.size).toBeGreaterThan(1);
    const picked = new Set<number>();
    for (const reason of reasons) {
      picked.add(rows.findIndex((r) => r.reason === reason));
    }
    for (let k = 0; k < rows.length; k += 97) {
      picked.add(k);
    }
    for (const k of picked) {
      const row = rows[k]!;
      client.explain(row.slot, row.stamp);
    }
    await client.flush();
    expect(answers.length).toBe(picked.size);
    let compared = 0;
    for (const [i, k] of [...picked].entries()) {
      const row = rows[k]!;
      const answer = answers[i]!;
      expect([answer.slot, answer.stamp]).toEqual([row.slot, row.stamp]);
      const expected = doctorExplainer.explain(doctorExplainer.drops[k]!)!;
      // A message dropped twice on one slot with one stamp is explained by its first drop.
      const first = rows.findIndex((r) => r.slot === row.slot && r.stamp === row.stamp);
      if (first === k) {
        expect(answer.explanation).toEqual(expected);
        compared++;
      }
      expect(answer.explanation?.reason).toBe(rows[first]!.reason);
      expect(answer.explanation?.topic).toBe(row.topic);
      expect(answer.explanation?.message.length).toBeGreaterThan(20);
    }
    expect(compared).toBeGreaterThan(picked.size / 2);
  });

  it("a not-selected explanation names the pivot's and the winner's stamps as seconds.nanoseconds, as the panel shows stamps", () => {
    const secNsec = (ns: string): string => `${ns.slice(0, -9)}.${ns.slice(-9)}`;
    const explained = Array.from(doctorExplainer.drops, (d) => doctorExplainer.explain(d))
      .filter((e) => e?.reason === "not-selected" && e.chosen?.winnerStamp != undefined)
      .slice(0, 50);
    expect(explained.length).toBeGreaterThan(0);
    for (const e of explained) {
      const { stamps, pivotSlot, winnerStamp } = e!.chosen!;
      const pivot = stamps[pivotSlot]!;
      expect(e!.message).toContain(`(stamp ${secNsec(pivot)})`);
      expect(e!.message).toContain(`it took ${secNsec(winnerStamp!)} on ${e!.topic}`);
      // JSON's form stays in the fields, not in the text.
      expect(e!.message).not.toContain(winnerStamp!);
    }
  });

  it("a stamp nothing was dropped at gets no explanation", async () => {
    answers.length = 0;
    client.explain(0, -1);
    await client.flush();
    expect(answers).toEqual([{ slot: 0, stamp: -1, explanation: undefined }]);
    client.dispose();
  });
});
