import { describe, expect, it } from "vitest";

import { Selector } from "./Selector";
import { SimpleUserFilter } from "./SimpleUserFilter";
import { UserSource } from "./UserSource";
import { chain } from "./chain";

class ExpectedException extends Error {}

describe("Selector", () => {
  it("upstream test_selector: picks index 1; the sink's exception propagates", () => {
    const src = new UserSource<[number, number, string]>();
    const select = new Selector<[number, number, string], [1]>([1]);
    let calls = 0;
    const snk = new SimpleUserFilter<[number]>((d) => {
      calls++;
      if (d === 2.5) {
        throw new ExpectedException("d == 2.5");
      }
      if (d !== 5.0) {
        throw new Error("d != 5.0");
      }
      return true;
    });
    chain(src, select, snk);
    src.push(1, 5.0, "abc");
    expect(() => {
      src.push(0, 2.5, "");
    }).toThrow(ExpectedException);
    expect(calls).toBe(2);
  });

  it("reorders and repeats indices", () => {
    const src = new UserSource<[string, number, boolean]>();
    const select = new Selector<[string, number, boolean], [2, 0, 0]>([2, 0, 0]);
    const got: unknown[][] = [];
    const snk = new SimpleUserFilter<[boolean, string, string]>((...args) => got.push(args) > 0);
    chain(src, select, snk);
    src.push("a", 1, true);
    expect(got).toEqual([[true, "a", "a"]]);
    expect(select.indices).toEqual([2, 0, 0]);
  });

  it("rejects bad indices clearly", () => {
    expect(() => new Selector<[number], [-1]>([-1])).toThrow(
      "Selector: index -1 is not a non-negative integer",
    );
    const src = new UserSource<[number]>();
    src.connectToSink(new Selector<[number, number], [1]>([1]) as never);
    expect(() => {
      src.push(1);
    }).toThrow("Selector: index 1 is out of range; it received 1 arguments");
  });
});
