import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { Constraint } from "./Constraint";
import { Graph, GraphError } from "./Graph";
import { identity } from "./Matrix";
import { Transaction } from "./Transaction";
import { Variable } from "./Variable";

function v(uuid: string, value = 0): Variable {
  return new Variable({ uuid, type: "fuse_variables::VelocityAngular2DStamped", data: [value] });
}
function c(uuid: string, vars: string[]): Constraint {
  return new Constraint({
    uuid,
    type: "fuse_constraints::AbsoluteVelocityAngular2DStampedConstraint",
    source: "test",
    variables: vars,
    mean: [0],
    sqrtInformation: identity(1),
    covariance: identity(1),
  });
}

describe("Transaction (reference/fuse.md §1.3)", () => {
  it("an add cancels a pending remove and adds nothing", () => {
    const t = new Transaction(5).removeVariable("a").addVariable(v("a", 1));
    expect(t.removedVariables).toEqual([]);
    expect(t.addedVariables).toEqual([]);
    expect(t.empty()).toBe(true);
  });

  it("a remove cancels a pending add and removes nothing", () => {
    const t = new Transaction(5).addConstraint(c("k", [])).removeConstraint("k");
    expect(t.addedConstraints).toEqual([]);
    expect(t.removedConstraints).toEqual([]);
  });

  it("a second add keeps the first unless overwrite, which replaces it in place", () => {
    const t = new Transaction(0).addVariable(v("a", 1)).addVariable(v("b", 2)).addVariable(v("a", 3));
    expect(t.addedVariables.map((x) => x.data[0])).toEqual([1, 2]);
    t.addVariable(v("a", 4), { overwrite: true });
    expect(t.addedVariables.map((x) => [x.uuid, x.data[0]])).toEqual([
      ["a", 4],
      ["b", 2],
    ]);
  });

  it("removes are recorded once", () => {
    const t = new Transaction(0).removeVariable("x").removeVariable("x");
    expect(t.removedVariables).toEqual(["x"]);
  });

  it("involved stamps are a sorted set; min/max include the stamp; the stamp alone is empty", () => {
    const t = new Transaction(7).addInvolvedStamp(9).addInvolvedStamp(3).addInvolvedStamp(9);
    expect(t.involvedStamps).toEqual([3, 9]);
    expect(t.minStamp()).toBe(3);
    expect(t.maxStamp()).toBe(9);
    expect(new Transaction(7).empty()).toBe(true);
    expect(new Transaction(7).minStamp()).toBe(7);
  });

  it("merge: max stamp, union of stamps, constraints then variables through the add/remove rules", () => {
    const a = new Transaction(10).addInvolvedStamp(10).addVariable(v("p", 1)).removeConstraint("old");
    const b = new Transaction(4)
      .addInvolvedStamp(4)
      .addVariable(v("p", 2))
      .addConstraint(c("old", ["p"]))
      .removeVariable("q");
    a.merge(b);
    expect(a.stamp).toBe(10);
    expect(a.involvedStamps).toEqual([4, 10]);
    expect(a.removedConstraints).toEqual([]); // b's add of "old" cancelled a's removal
    expect(a.addedConstraints).toEqual([]);
    expect(a.addedVariables[0]!.data[0]).toBe(1); // no overwrite
    expect(a.removedVariables).toEqual(["q"]);
    a.merge(new Transaction(0).addVariable(v("p", 3)), { overwrite: true });
    expect(a.addedVariables[0]!.data[0]).toBe(3);
  });

  it("matches a brute-force model of fuse's vector semantics on random operation sequences", () => {
    type Op = { kind: "add" | "remove" | "addOverwrite"; id: string; value: number };
    const op = fc.record({
      kind: fc.constantFrom<Op["kind"]>("add", "remove", "addOverwrite"),
      id: fc.constantFrom("a", "b", "c", "d"),
      value: fc.integer({ min: 0, max: 99 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), fc.array(op, { maxLength: 30 }), (ops1, ops2) => {
        // Oracle: arrays of [id, value] and removed ids, with std::find / erase / push_back.
        const run = (ops: Op[], added: [string, number][] = [], removed: string[] = []) => {
          for (const o of ops) {
            if (o.kind === "remove") {
              const i = added.findIndex(([id]) => id === o.id);
              if (i >= 0) {
                added.splice(i, 1);
              } else if (!removed.includes(o.id)) {
                removed.push(o.id);
              }
            } else {
              const r = removed.indexOf(o.id);
              if (r >= 0) {
                removed.splice(r, 1);
                continue;
              }
              const i = added.findIndex(([id]) => id === o.id);
              if (i < 0) {
                added.push([o.id, o.value]);
              } else if (o.kind === "addOverwrite") {
                added[i] = [o.id, o.value];
              }
            }
          }
          return { added, removed };
        };
        const apply = (t: Transaction, ops: Op[]) => {
          for (const o of ops) {
            if (o.kind === "remove") {
              t.removeVariable(o.id);
            } else {
              t.addVariable(v(o.id, o.value), { overwrite: o.kind === "addOverwrite" });
            }
          }
          return t;
        };
        const t = apply(new Transaction(0), ops1);
        const o1 = run(ops1);
        expect(t.addedVariables.map((x) => [x.uuid, x.data[0]])).toEqual(o1.added);
        expect(t.removedVariables).toEqual(o1.removed);
        // merge(other, overwrite) == replaying other's adds then removes
        const other = apply(new Transaction(0), ops2);
        const o2 = run(ops2);
        t.merge(other, { overwrite: true });
        const replay: Op[] = [
          ...o2.added.map(([id, value]) => ({ kind: "addOverwrite" as const, id, value })),
          ...o2.removed.map((id) => ({ kind: "remove" as const, id, value: 0 })),
        ];
        const o3 = run(replay, o1.added, o1.removed);
        expect(t.addedVariables.map((x) => [x.uuid, x.data[0]])).toEqual(o3.added);
        expect(t.removedVariables).toEqual(o3.removed);
      }),
    );
  });
});

describe("Graph (HashGraph semantics, reference/fuse.md §1.3)", () => {
  it("applies add vars, add constraints, remove constraints, remove vars in that order", () => {
    const g = new Graph();
    g.update(new Transaction(0).addVariable(v("a", 1)).addConstraint(c("k", ["a"])));
    // Removing the variable and its constraint in one transaction works: constraints go first.
    g.update(new Transaction(1).removeVariable("a").removeConstraint("k"));
    expect(g.variableCount).toBe(0);
    expect(g.constraintCount).toBe(0);
  });

  it("a duplicate add keeps the graph's value", () => {
    const g = new Graph();
    g.update(new Transaction(0).addVariable(v("a", 1)));
    g.getVariable("a").data[0] = 5; // optimizer result
    g.update(new Transaction(1).addVariable(v("a", 9)));
    expect(g.getVariable("a").data[0]).toBe(5);
  });

  it("throws for a constraint on an unknown variable and when removing a used variable", () => {
    const g = new Graph();
    expect(() => { g.update(new Transaction(0).addConstraint(c("k", ["missing"]))); }).toThrow(GraphError);
    g.update(new Transaction(0).addVariable(v("a")).addConstraint(c("k", ["a"])));
    expect(() => { g.update(new Transaction(1).removeVariable("a")); }).toThrow(/used by existing constraints \(k plus 0 others\)/);
    expect(g.removeVariable("nope")).toBe(false);
    expect(g.removeConstraint("nope")).toBe(false);
  });

  it("copies added variables and clones deeply; hold flags follow", () => {
    const orig = v("a", 1);
    orig.hold = true;
    const g = new Graph();
    g.addVariable(orig);
    g.getVariable("a").data[0] = 2;
    expect(orig.data[0]).toBe(1);
    expect(g.isVariableOnHold("a")).toBe(true);
    const copy = g.clone();
    g.getVariable("a").data[0] = 3;
    expect(copy.getVariable("a").data[0]).toBe(2);
    expect(copy.getConnectedConstraints("a")).toEqual([]);
    expect(() => copy.getConnectedConstraints("zz")).toThrow(GraphError);
  });
});
