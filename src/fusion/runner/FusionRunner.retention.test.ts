import { describe, expect, it } from "vitest";

import { FusionRunner, type FusedPose } from "./FusionRunner";
import { odometry2DSession, odometryMessage, SESSION_BASE_SEC } from "./testing";
import { TimeBase } from "../../time";

// A live session in miniature: 10 Hz odometry for 150 s through the default fixed-lag flow (the
// panel's), with a message 2 s too old every 40th message so that drops accumulate as well.
const CONFIG = odometry2DSession("0.5s");
const MESSAGES = 1500;
const odom = (rel: number): unknown => odometryMessage(rel);

/** Feeds the session; `after(k)` runs after the k-th on-time message. */
function run(runner: FusionRunner, after: (k: number) => void = () => undefined): void {
  runner.start({ timeBase: TimeBase.forFirstSecNsec(SESSION_BASE_SEC, 0) });
  for (let k = 0; k < MESSAGES; k++) {
    const t = k * 100_000_000;
    if (k % 40 === 39) {
      runner.message({ input: { topic: "/odom", message: odom(t - 2_000_000_000 + 50_000_000) }, arrival: t });
    }
    runner.message({ input: { topic: "/odom", message: odom(t) }, arrival: t });
    after(k);
  }
  runner.finish();
}

// Constraint UUIDs are random (v4, as fuse's); everything else in a line is deterministic.
const normalize = (line: string): string =>
  line.replace(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<random>");

describe("FusionRunner retention (bounded memory for live use)", () => {
  // The unbounded run (what `lockstep analyze` does) is the oracle for the bounded ones.
  const full = new FusionRunner(CONFIG);
  run(full);
  const allLines = full.transactionLines.map(normalize);
  const allPoses = [...full.trajectory];
  const allDrops = [...full.drops];

  it("the session is long enough to matter", () => {
    expect(allLines.length).toBe(MESSAGES);
    expect(allPoses.length).toBeGreaterThan(1000);
    expect(allDrops.length).toBe(Math.floor(MESSAGES / 40));
  });

  it("setRetention keeps at most the limits at every step, and exactly the newest entries", () => {
    const runner = new FusionRunner(CONFIG).setRetention({ transactions: 50, poses: 30, drops: 4 });
    let most = { tx: 0, poses: 0, drops: 0 };
    run(runner, () => {
      most = {
        tx: Math.max(most.tx, runner.retainedTransactionCount),
        poses: Math.max(most.poses, runner.trajectory.length),
        drops: Math.max(most.drops, runner.drops.length),
      };
    });
    expect(most).toEqual({ tx: 50, poses: 30, drops: 4 });
    // Counts in the summary still cover the whole run.
    expect(runner.transactionCount).toBe(MESSAGES);
    expect((runner.summary() as { transactions: number }).transactions).toBe(MESSAGES);
    expect((runner.summary() as { fusion: { drops: Record<string, number> } }).fusion.drops).toEqual({ "too-late": allDrops.length });
    // What is kept is the newest part of the unbounded output.
    expect(runner.transactionLines.map(normalize)).toEqual(allLines.slice(-50));
    const kept = runner.trajectory;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).toEqual(allPoses.slice(-kept.length));
    expect(runner.drops).toEqual(allDrops.slice(-runner.drops.length));
    expect([...runner.outputs()[0]!.lines].map(normalize)).toEqual(allLines.slice(-50));
  });

  it("draining hands out every transaction and pose once, in order, and keeps nothing behind", () => {
    const runner = new FusionRunner(CONFIG);
    const lines: string[] = [];
    const poses: FusedPose[] = [];
    let most = 0;
    run(runner, (k) => {
      most = Math.max(most, runner.retainedTransactionCount + runner.trajectory.length);
      if (k % 37 === 0) {
        lines.push(...runner.drainTransactions());
        poses.push(...runner.drainTrajectory());
      }
    });
    lines.push(...runner.drainTransactions());
    poses.push(...runner.drainTrajectory());
    expect(lines.map(normalize)).toEqual(allLines);
    expect(poses).toEqual(allPoses);
    // Between two drains at most 37 messages' worth (one transaction and ≤ 1 pose each) is held.
    expect(most).toBeLessThanOrEqual(2 * 37);
    expect(runner.retainedTransactionCount).toBe(0);
    expect(runner.transactionLines).toEqual([]);
    expect(runner.trajectory).toEqual([]);
    expect(runner.drainTransactions()).toEqual([]);
    expect(runner.transactionCount).toBe(MESSAGES);
  });

  it("draining as objects hands out the same transactions as the lines, structured", () => {
    const runner = new FusionRunner(CONFIG);
    const objects: unknown[] = [];
    run(runner, (k) => {
      if (k % 37 === 0) {
        objects.push(...runner.drainTransactionJson());
      }
    });
    objects.push(...runner.drainTransactionJson());
    expect(objects.map((o) => normalize(JSON.stringify(o)))).toEqual(allLines);
    expect(runner.drainTransactionJson()).toEqual([]);
    expect(runner.drainTransactions()).toEqual([]);
  });

  it("draining under a limit loses only the oldest of each interval", () => {
    const runner = new FusionRunner(CONFIG).setRetention({ transactions: 10 });
    let drained = 0;
    let mismatches = 0;
    let drains = 0;
    run(runner, (k) => {
      if (k % 25 === 24) {
        // Recorded so far: the first `count` transactions of the unbounded run; the drain holds the
        // newest of those recorded since the previous drain, at most 10.
        const count = runner.transactionCount;
        const got = runner.drainTransactions().map(normalize);
        const expected = allLines.slice(Math.max(drained, count - 10), count);
        mismatches += got.length === expected.length && got.every((l, i) => l === expected[i]) ? 0 : 1;
        drains += got.length === 10 ? 1 : 0;
        drained = count;
      }
    });
    expect(mismatches).toBe(0);
    expect(drains).toBe(MESSAGES / 25);
  });

  it("rejects a negative or fractional limit", () => {
    expect(() => new FusionRunner(CONFIG).setRetention({ poses: -1 })).toThrow(RangeError);
    expect(() => new FusionRunner(CONFIG).setRetention({ transactions: 2.5 })).toThrow(/transactions/);
  });
});
