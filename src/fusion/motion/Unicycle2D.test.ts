import { describe, expect, it } from "vitest";

import { Unicycle2D } from "./Unicycle2D";
import { Unicycle2DStateKinematicConstraint } from "./Unicycle2DStateKinematicConstraint";
import {
  ACCELERATION_LINEAR_2D,
  Graph,
  NIL_UUID,
  ORIENTATION_2D,
  POSITION_2D,
  Transaction,
  UNICYCLE_2D_KINEMATIC,
  Variable,
  VELOCITY_ANGULAR_2D,
  VELOCITY_LINEAR_2D,
  type FusionContext,
} from "../core";
import { wrapAngle } from "../math/angles";
import { predictUnicycle2D } from "../math/unicycle2d";
import { testContext } from "../optimizer/testing";

const MS = 1_000_000;
const TYPES = [POSITION_2D, ORIENTATION_2D, VELOCITY_LINEAR_2D, VELOCITY_ANGULAR_2D, ACCELERATION_LINEAR_2D];

const Q = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];

/** A model whose history starts at stamp 0 with the given state (as after an ignition prior). */
function seeded(state: number[], options?: Partial<{ scaleProcessNoise: boolean }>) {
  const context = testContext();
  const model = new Unicycle2D({ processNoiseDiagonal: Q, ...options });
  model.initialize(context, "unicycle");
  model.start();
  const tx = new Transaction(0).addInvolvedStamp(0);
  expect(model.apply(tx)).toBe(true);
  const graph = new Graph();
  const parts = [state.slice(0, 2), state.slice(2, 3), state.slice(3, 5), state.slice(5, 6), state.slice(6, 8)];
  TYPES.forEach((t, k) => graph.addVariable(Variable.stamped(context.uuids, t, 0, NIL_UUID, parts[k])));
  model.graphCallback(graph);
  return { model, context };
}

/** Applies a bare transaction at `stamp` and returns it. */
function step(model: Unicycle2D, stamp: number): Transaction {
  const tx = new Transaction(stamp).addInvolvedStamp(stamp);
  expect(model.apply(tx)).toBe(true);
  return tx;
}

/** The 8-vector of the state variables the transaction adds at `stamp`. */
function stateIn(tx: Transaction, context: FusionContext, stamp: number): number[] {
  return TYPES.flatMap((t) => Array.from(tx.getAddedVariable(context.uuids.uuid(t, stamp))!.data));
}

describe("Unicycle2D", () => {
  it("predicts a constant-velocity trajectory exactly", () => {
    const yaw = 0.3;
    const { model, context } = seeded([1, 2, yaw, 1.5, 0, 0, 0, 0]);
    for (let k = 1; k <= 20; k++) {
      const t = k * 100 * MS;
      const s = stateIn(step(model, t), context, t);
      const d = 1.5 * (k * 0.1);
      expect(s[0]).toBeCloseTo(1 + d * Math.cos(yaw), 12);
      expect(s[1]).toBeCloseTo(2 + d * Math.sin(yaw), 12);
      expect(s[2]).toBeCloseTo(yaw, 14);
      expect(s.slice(3)).toEqual([1.5, 0, 0, 0, 0]);
    }
  });

  it("predicts a constant turn exactly (yaw wraps, position follows the discrete arc)", () => {
    const v = 2;
    const w = 0.8;
    const { model, context } = seeded([0, 0, 3, v, 0, w, 0, 0]);
    let x = 0;
    let y = 0;
    for (let k = 1; k <= 40; k++) {
      // Oracle: the r_l-style model moves along the heading at the *start* of each 50 ms step.
      const heading = 3 + (k - 1) * w * 0.05;
      x += v * 0.05 * Math.cos(heading);
      y += v * 0.05 * Math.sin(heading);
      const t = k * 50 * MS;
      const s = stateIn(step(model, t), context, t);
      expect(s[0]).toBeCloseTo(x, 10);
      expect(s[1]).toBeCloseTo(y, 10);
      expect(s[2]).toBeGreaterThanOrEqual(-Math.PI);
      expect(s[2]).toBeLessThan(Math.PI);
      expect(Math.abs(wrapAngle(s[2]! - (3 + k * w * 0.05)))).toBeLessThan(1e-12);
    }
  });

  it("adds one kinematic constraint per new gap, joining consecutive stamps only", () => {
    const { model, context } = seeded([0, 0, 0, 1, 0, 0, 0, 0]);
    const ids = (stamp: number): string[] => TYPES.map((t) => context.uuids.uuid(t, stamp));
    const tx1 = step(model, 100 * MS);
    expect(tx1.addedConstraints).toHaveLength(1);
    const c1 = tx1.addedConstraints[0]!;
    expect(c1.type).toBe(UNICYCLE_2D_KINEMATIC);
    expect(c1.source).toBe("unicycle");
    expect(c1.variables).toEqual([...ids(0), ...ids(100 * MS)]);
    expect(tx1.addedVariables.map((v) => v.type)).toEqual([...TYPES, ...TYPES]);

    const tx3 = step(model, 300 * MS);
    expect(tx3.addedConstraints.map((c) => c.variables)).toEqual([[...ids(100 * MS), ...ids(300 * MS)]]);
    const old = tx3.addedConstraints[0]!;

    // A stamp inside the [100, 300] ms segment splits it: the old constraint is removed and two
    // new ones join 100→200 and 200→300.
    const tx2 = step(model, 200 * MS);
    expect(tx2.removedConstraints).toEqual([old.uuid]);
    expect(tx2.addedConstraints.map((c) => c.variables)).toEqual([
      [...ids(100 * MS), ...ids(200 * MS)],
      [...ids(200 * MS), ...ids(300 * MS)],
    ]);
    expect(tx2.involvedStamps).toEqual([100 * MS, 200 * MS, 300 * MS]);

    // Re-applying an existing stamp adds nothing.
    expect(step(model, 200 * MS).addedConstraints).toHaveLength(0);
  });

  it("uses process noise Q·dt, whitened as chol_upper((Q·dt)⁻¹)", () => {
    const { model } = seeded([0, 0, 0, 0, 0, 0, 0, 0]);
    const c = step(model, 250 * MS).addedConstraints[0] as Unicycle2DStateKinematicConstraint;
    expect(c).toBeInstanceOf(Unicycle2DStateKinematicConstraint);
    expect(c.dt).toBe(0.25);
    for (let i = 0; i < 8; i++) {
      for (let j = 0; j < 8; j++) {
        const want = i === j ? Q[i]! * 0.25 : 0;
        expect(c.covariance.data[i * 8 + j]).toBeCloseTo(want, 15);
        expect(c.sqrtInformation.data[i * 8 + j]).toBeCloseTo(i === j ? 1 / Math.sqrt(want) : 0, 10);
      }
    }
  });

  it("scales the pose process noise by max(velocityNormMin, ‖(vx, vy, vyaw)‖)² when asked", () => {
    const { model } = seeded([0, 0, 0, 3, 0, 4, 0, 0], { scaleProcessNoise: true });
    const c = step(model, 1000 * MS).addedConstraints[0]!;
    // ‖(3, 0, 4)‖² = 25 on x, y, yaw; dt = 1 s
    expect(c.covariance.data[0]).toBeCloseTo(0.1 * 25, 12);
    expect(c.covariance.data[2 * 8 + 2]).toBeCloseTo(0.3 * 25, 12);
    expect(c.covariance.data[3 * 8 + 3]).toBeCloseTo(0.4, 12);
  });

  it("overwrites a sensor's initial values with the motion model's prediction", () => {
    const { model, context } = seeded([0, 0, 0, 2, 0, 0, 0, 0]);
    const t = 500 * MS;
    const tx = new Transaction(t).addInvolvedStamp(t);
    tx.addVariable(Variable.stamped(context.uuids, VELOCITY_LINEAR_2D, t, NIL_UUID, [9, 9]));
    expect(model.apply(tx)).toBe(true);
    expect(Array.from(tx.getAddedVariable(context.uuids.uuid(VELOCITY_LINEAR_2D, t))!.data)).toEqual([2, 0]);
    expect(Array.from(tx.getAddedVariable(context.uuids.uuid(POSITION_2D, t))!.data)).toEqual([1, 0]);
  });

  it("predicts from the optimized graph values after graphCallback", () => {
    const { model, context } = seeded([0, 0, 0, 1, 0, 0, 0, 0]);
    const tx = step(model, 100 * MS);
    const graph = new Graph();
    graph.update(tx);
    // The optimizer moved the state at 100 ms: x = 5 and vx = 2.
    graph.getVariable(context.uuids.uuid(POSITION_2D, 100 * MS)).data[0] = 5;
    graph.getVariable(context.uuids.uuid(VELOCITY_LINEAR_2D, 100 * MS)).data[0] = 2;
    model.graphCallback(graph);
    const s = stateIn(step(model, 200 * MS), context, 200 * MS);
    expect(s[0]).toBeCloseTo(5.2, 12);
    expect(s[3]).toBe(2);
  });

  it("re-predicts the states outside the graph from their predecessor whenever it changes", () => {
    const { model, context } = seeded([0, 0, 0, 1, 0, 0, 0, 0]);
    for (const ms of [100, 200, 300]) {
      step(model, ms * MS);
    }
    /** A graph holding the states at the given stamps (ms → state). */
    const graphOf = (states: Record<number, number[]>): Graph => {
      const graph = new Graph();
      for (const [ms, state] of Object.entries(states)) {
        const parts = [state.slice(0, 2), state.slice(2, 3), state.slice(3, 5), state.slice(5, 6), state.slice(6, 8)];
        TYPES.forEach((t, k) => graph.addVariable(Variable.stamped(context.uuids, t, Number(ms) * MS, NIL_UUID, parts[k])));
      }
      return graph;
    };
    /** The history expected when the graph's newest state is `from` at `fromMs`: predicted on every 100 ms. */
    const chainFrom = (from: number[], fromMs: number): Map<number, number[]> => {
      const out = new Map<number, number[]>();
      let state = Float64Array.from(from);
      for (let ms = fromMs + 100; ms <= 300; ms += 100) {
        const next = new Float64Array(8);
        predictUnicycle2D(state, 0.1, next);
        out.set(ms * MS, Array.from(next));
        state = next;
      }
      return out;
    };
    const expectChain = (from: number[], fromMs: number): void => {
      const history = model.stateHistory();
      for (const [stamp, state] of chainFrom(from, fromMs)) {
        expect(history.get(stamp)).toEqual(state);
      }
    };
    const s0 = [0, 0, 0, 1, 0, 0, 0, 0];
    model.graphCallback(graphOf({ 0: s0, 100: [5, 0, 0.2, 2, 0, 0.1, 0, 0] }));
    expectChain([5, 0, 0.2, 2, 0, 0.1, 0, 0], 100);
    model.graphCallback(graphOf({ 0: s0, 100: [5, 0, 0.2, 2, 0, 0.1, 0, 0] }));
    expectChain([5, 0, 0.2, 2, 0, 0.1, 0, 0], 100);
    // The optimizer moved the state at 100 ms: the states after it follow.
    model.graphCallback(graphOf({ 0: s0, 100: [7, 1, -0.3, 3, 0, -0.2, 0.5, 0] }));
    expectChain([7, 1, -0.3, 3, 0, -0.2, 0.5, 0], 100);
    // The state at 100 ms left the graph (marginalized): it is predicted from the one at 0 ms.
    model.graphCallback(graphOf({ 0: [1, 2, 0.4, 1, 0, 0.3, 0, 0] }));
    expectChain([1, 2, 0.4, 1, 0, 0.3, 0, 0], 0);
  });

  it("fails (false, with a warning) for a stamp older than the history buffer", () => {
    const { model, context } = seeded([0, 0, 0, 0, 0, 0, 0, 0]);
    step(model, 4000 * MS);
    step(model, 4100 * MS);
    const tx = new Transaction(-500 * MS).addInvolvedStamp(-500 * MS);
    expect(model.apply(tx)).toBe(false);
    expect(context.warnings.join("\n")).toMatch(/buffer length/);
  });

  it("warns, naming the stamp in seconds, when a segment begins before every state of its history", () => {
    const { model, context } = seeded([0, 0, 0, 0, 0, 0, 0, 0]);
    step(model, 1000 * MS);
    const tx = new Transaction(-250 * MS).addInvolvedStamp(-250 * MS);
    model.apply(tx);
    const base = context.timeBase;
    expect(context.warnings.join("\n")).toContain(
      `unable to locate a state in the history with stamp <= ${base.formatSeconds(-250 * MS)}; variables will all be initialized to 0`,
    );
    expect(base.formatSeconds(-250 * MS)).toMatch(/^-?\d+\.\d{9}$/);
  });

  it("rejects a malformed process-noise diagonal with a clear error", () => {
    expect(() => new Unicycle2D({ processNoiseDiagonal: [1, 2, 3] })).toThrow(/8 finite numbers/);
  });
});
