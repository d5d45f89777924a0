import { describe, expect, it } from "vitest";

import { Constraint } from "./Constraint";
import { identity } from "./Matrix";
import { TimestampManager, TimestampOutOfBufferError } from "./TimestampManager";
import { Transaction } from "./Transaction";

function manager(buffer = Infinity) {
  const calls: [number, number][] = [];
  const tm = new TimestampManager((b, e) => {
    calls.push([b, e]);
    return {
      constraints: [
        new Constraint({ uuid: `c${b}-${e}`, type: "k", source: "m", variables: [], mean: [0], sqrtInformation: identity(1), covariance: identity(1) }),
      ],
      variables: [],
    };
  }, buffer);
  return { tm, calls };
}

const tx = (...stamps: number[]) => {
  const t = new Transaction(Math.max(...stamps));
  stamps.forEach((s) => t.addInvolvedStamp(s));
  return t;
};

describe("TimestampManager (reference/fuse.md §1.2)", () => {
  it("seeds with (t, t) on the first query, then chains new stamps", () => {
    const { tm, calls } = manager();
    const t1 = tx(10);
    tm.query(t1);
    expect(calls).toEqual([[10, 10]]);
    expect(t1.addedConstraints).toHaveLength(0);
    const t2 = tx(20);
    tm.query(t2);
    expect(calls.at(-1)).toEqual([10, 20]);
    expect(t2.addedConstraints.map((c) => c.uuid)).toEqual(["c10-20"]);
    expect(t2.involvedStamps).toEqual([10, 20]);
    expect(tm.stamps()).toEqual([10, 20]);
  });

  it("splits a segment when a stamp falls inside it: removes its constraint, adds two", () => {
    const { tm } = manager();
    tm.query(tx(10));
    tm.query(tx(20));
    const t = tx(15);
    tm.query(t);
    expect(t.removedConstraints).toEqual(["c10-20"]);
    expect(t.addedConstraints.map((c) => c.uuid)).toEqual(["c10-15", "c15-20"]);
    expect(tm.stamps()).toEqual([10, 15, 20]);
  });

  it("an existing segment is not regenerated; an older stamp before the history extends it backwards", () => {
    const { tm, calls } = manager();
    tm.query(tx(10));
    tm.query(tx(20));
    const n = calls.length;
    tm.query(tx(10, 20));
    expect(calls.length).toBe(n);
    const t = tx(5);
    tm.query(t);
    expect(t.addedConstraints.map((c) => c.uuid)).toEqual(["c5-10"]);
  });

  it("purges history older than the buffer and rejects stamps before it", () => {
    const { tm } = manager(10);
    for (const s of [0, 5, 10, 15, 20, 25]) {
      tm.query(tx(s));
    }
    // Segments whose end is more than 10 before the newest (25) are gone: [0,5], [5,10].
    expect(tm.stamps()).toEqual([10, 15, 20, 25]);
    expect(() => { tm.query(tx(3)); }).toThrow(TimestampOutOfBufferError);
  });
});
