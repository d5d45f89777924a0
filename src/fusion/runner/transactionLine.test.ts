import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { transactionLine } from "./transactionLine";
import { TimeBase } from "../../time";
import { Constraint, Transaction, Variable, type Matrix } from "../core";

const BASE = TimeBase.forFirstSecNsec(1_432_235_497, 0);
const ZERO_BASE = new TimeBase(0);

function matrix(rows: number, cols: number, values: readonly number[]): Matrix {
  return { rows, cols, data: Float64Array.from(values) };
}

function sample(values: readonly number[], extra?: Record<string, unknown>): Transaction {
  const [a = 0, b = 0, c = 0, d = 0] = values;
  const tx = new Transaction(2_000_000_000);
  tx.addInvolvedStamp(1_500_000_000).addInvolvedStamp(2_000_000_000).addInvolvedStamp(-3);
  tx.addVariable(
    new Variable({
      uuid: "00000000-0000-0000-0000-00000000000a",
      type: "fuse_variables::Position2DStamped",
      data: [a, b],
      stamp: 1_500_000_000,
      deviceId: "00000000-0000-0000-0000-000000000000",
    }),
  );
  tx.addVariable(new Variable({ uuid: "00000000-0000-0000-0000-00000000000b", type: "landmark", data: [c], hold: true }));
  tx.addVariable(
    new Variable({ uuid: "00000000-0000-0000-0000-00000000000c", type: "stamped-no-device", data: [d], stamp: 7 }),
  );
  tx.addConstraint(
    new Constraint({
      uuid: "00000000-0000-0000-0000-0000000000c1",
      type: "fuse_models::Unicycle2DStateKinematicConstraint",
      source: "unicycle",
      variables: ["00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000c"],
      mean: [a, b, c],
      sqrtInformation: matrix(2, 3, [a, b, c, d, 1, 0]),
      covariance: matrix(3, 3, [1, 0, 0, 0, d, 0, 0, 0, 1]),
      loss: { type: "fuse_loss::HuberLoss", parameters: { a: 1.5 } },
      extra,
    }),
  );
  tx.addConstraint(
    new Constraint({
      uuid: "00000000-0000-0000-0000-0000000000c2",
      type: "empty",
      source: "s",
      variables: [],
      mean: [],
      sqrtInformation: matrix(0, 0, []),
      covariance: matrix(0, 0, []),
    }),
  );
  tx.removeVariable("00000000-0000-0000-0000-0000000000f1");
  tx.removeConstraint("00000000-0000-0000-0000-0000000000f2");
  return tx;
}

describe("transactionLine (the DESIGN §3.4 line written directly)", () => {
  it("equals JSON.stringify(tx.toJson()) on a transaction with every field kind", () => {
    const tx = sample([1.25, -0, 3e-310, 1e21], { dt: 0.1, note: "x", skipped: undefined, nested: { b: [1, NaN] } });
    expect(transactionLine(tx, BASE, "odom")).toBe(JSON.stringify(tx.toJson(BASE, "odom")));
    expect(transactionLine(tx, ZERO_BASE, "odom")).toBe(JSON.stringify(tx.toJson(ZERO_BASE, "odom")));
  });

  it("matches when an extra field shadows a standard key (the spread overrides it in place)", () => {
    const tx = sample([1, 2, 3, 4], { type: "overridden", mean: "m", dt: 2 });
    expect(transactionLine(tx, BASE, "s")).toBe(JSON.stringify(tx.toJson(BASE, "s")));
  });

  it("matches an empty transaction", () => {
    const tx = new Transaction(0);
    expect(transactionLine(tx, BASE, "")).toBe(JSON.stringify(tx.toJson(BASE, "")));
  });

  it("matches for any doubles, including non-finite ones and negative zero (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.double(), { minLength: 4, maxLength: 4 }), fc.double(), fc.string(), (values, dt, source) => {
        const tx = sample(values, { dt });
        expect(transactionLine(tx, BASE, source)).toBe(JSON.stringify(tx.toJson(BASE, source)));
      }),
      { numRuns: 300 },
    );
  });
});
